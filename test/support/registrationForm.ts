import type { Page } from "playwright-core";

export interface Step1Athlete {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  grade: string;
  gender: "Male" | "Female";
  schoolName: string;
  emergencyContactName: string;
  emergencyContactPhone: string;
  /** The parent or guardian of an athlete under 18; without it, the box "The athlete is 18 or older" is ticked. */
  guardian?: { name: string; email: string; phone: string };
}

/** Fills step 1 of /register/{id} by its labels, inside its own form (on /register/3 the coach dialog has an 'Email' too). */
export async function fillRegistrationStep1(page: Page, a: Step1Athlete): Promise<void> {
  const step1 = page.locator("form", { has: page.getByLabel(/I agree to the terms and conditions/) });
  // The first athlete's own fields (a form with siblings has athletes 2 to 4 with the same labels below).
  const athlete = step1.getByRole("group", { name: "Personal Information", exact: true });
  await athlete.getByLabel("First Name").fill(a.firstName);
  await athlete.getByLabel("Last Name").fill(a.lastName);
  await athlete.getByRole("textbox", { name: "Email", exact: true }).fill(a.email);
  await athlete.getByLabel("Phone Number").fill(a.phone);
  await athlete.getByLabel("Grade").fill(a.grade);
  await athlete.getByLabel("Gender").selectOption(a.gender);
  await athlete.getByLabel("School Name").fill(a.schoolName);
  await step1.getByLabel("Emergency Contact Name").fill(a.emergencyContactName);
  await step1.getByLabel("Emergency Contact Phone").fill(a.emergencyContactPhone);
  if (a.guardian) {
    await step1.getByLabel("Parent or Guardian Name").fill(a.guardian.name);
    await step1.getByLabel("Parent or Guardian Email").fill(a.guardian.email);
    await step1.getByLabel("Parent or Guardian Phone").fill(a.guardian.phone);
  } else {
    await step1.getByLabel(/The athlete is 18 or older/).check();
  }
  await step1.getByLabel(/I agree to the terms and conditions/).check();
}

/** Fills the (offline) Stripe card Element. */
export async function fillCard(page: Page, card: string, zip: string): Promise<void> {
  await page.getByLabel("Card number").fill(card);
  await page.getByLabel("Expiration date MM / YY").fill("1234");
  await page.getByLabel("Security code (CVC)").fill("123");
  await page.getByLabel("ZIP code").fill(zip);
}

/**
 * A registration form's widget (RegistrationSteps, TeamForm) loads at the first hover, focus or touch of the form:
 * hover it and wait. A hover that lands before the page's script listens is missed, as a real visitor's would be
 * until they move: the mouse leaves and comes back until the widget starts.
 */
export async function formStarted(page: Page, widget: "RegistrationSteps" | "TeamForm"): Promise<void> {
  const started = page.locator(`[data-widget="${widget}"][data-hydrated="true"]`);
  for (let attempt = 0; attempt < 5; attempt++) {
    await page.mouse.move(0, 0);
    await page.locator(`[data-widget="${widget}"]`).first().hover();
    if (await started.waitFor({ timeout: 3_000 }).then(() => true, () => false)) return;
  }
  await started.waitFor();
}

/** /stripe-checkout's card panel loads at the first hover, focus or touch of the page: hover its heading and wait for it. */
export async function checkoutStarted(page: Page): Promise<void> {
  await page.locator(".checkout-page h1").first().hover();
  await page.locator('[data-widget="PaymentPanel"][data-hydrated="true"]').waitFor();
}

/** Fills the team form's coach and `count` athletes (`Wrestler{n} {lastName}`, ages 11 up, shirt Medium) by their labels. */
export async function fillTeamForm(page: Page, t: { lastName: string; coachEmail: string; athleteEmail: (n: number) => string; count?: number }): Promise<void> {
  const coach = page.getByRole("group", { name: "Coach Information" });
  await coach.getByLabel("First Name").fill("Dana");
  await coach.getByLabel("Last Name").fill(t.lastName);
  await coach.getByLabel("Email").fill(t.coachEmail);
  await coach.getByLabel("Phone").fill("(205) 555-0142");
  for (let n = 1; n <= (t.count ?? 5); n++) {
    if (n > 2) await page.getByRole("button", { name: "Add athlete" }).click();
    const row = page.getByRole("group", { name: `Athlete ${n}`, exact: true });
    await row.getByLabel("First Name").fill(`Wrestler${n}`);
    await row.getByLabel("Last Name").fill(t.lastName);
    await row.getByLabel("Age").fill(String(10 + n));
    await row.getByLabel("Email").fill(t.athleteEmail(n));
    await row.getByLabel("Parent Name").fill(`Parent ${n}`);
    await row.getByLabel("Parent Phone").fill("205-555-0100");
    await row.getByLabel("Shirt Size").selectOption("Medium");
  }
}
