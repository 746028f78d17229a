/**
 * The individual form's parent or guardian: asked for an athlete under 18 (the box "18 or older" not ticked), kept
 * with the registration, shown on the manage page, and the one the e-mails greet and go to.
 */
import { describe, expect, it } from "vitest";
import { bookingApp } from "./helpers.ts";
import { textOf, visitor } from "../../../support/http.ts";
import { sentText } from "../../../support/mail.ts";

const t = bookingApp({ webhooks: "never" });

const KID = {
  firstName: "Maya", lastName: "Ortiz", email: "maya.kid@example.com", phone: "(702) 555-0100", grade: "7th", gender: "Female", schoolName: "Desert Middle",
  emergencyContactName: "Luis Ortiz", emergencyContactPhone: "702-555-0123", agrees: "on", registrationType: "full",
};
let seq = 0;
const formId = () => `guardian-form-${String(++seq).padStart(4, "0")}-${Date.now()}`;
const start = (v: Awaited<ReturnType<typeof visitor>>, data: Record<string, unknown>) =>
  v.post("/api/events/2/create-payment-intent").send({ option: "full", formSessionId: formId(), registrationData: { ...KID, ...data } });

describe("the parent or guardian of an athlete under 18", () => {
  it("is required unless the athlete is 18 or older: the spec's messages, nothing held", async () => {
    const v = await visitor(t.app);
    const before = await t.db("registrations").count({ n: "*" }).first();
    const res = await start(v, { guardianEmail: "not-an-address", guardianPhone: "555" });
    expect(res.status).toBe(400);
    expect(res.body.fieldErrors).toMatchObject({
      guardianName: "This field is required",
      guardianEmail: "Please enter a valid email address",
      guardianPhone: "Please enter a valid 10-digit phone number",
    });
    expect(await t.db("registrations").count({ n: "*" }).first()).toEqual(before);
    // An adult athlete needs none.
    const adult = await start(v, { adult: "on" });
    expect(adult.status).toBe(200);
    const row = await t.db("registrations").where({ reference: adult.body.registrationId }).first();
    expect(row).toMatchObject({ guardian_name: null, guardian_email: null, guardian_phone: null, contact_email: "maya.kid@example.com" });
  });

  it("is stored, shown on the manage page, greeted by the e-mails at the guardian's address, and found by 'Lost your confirmation?'", async () => {
    const v = await visitor(t.app);
    const res = await start(v, { guardianName: "Ana Ortiz", guardianEmail: "ana.parent@example.com", guardianPhone: "(702) 555-0199" });
    expect(res.status).toBe(200);
    const reference = res.body.registrationId as string;
    const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId })).body).toMatchObject({ status: "paid" });

    const row = await t.db("registrations").where({ reference }).first();
    expect(row).toMatchObject({ guardian_name: "Ana Ortiz", guardian_email: "ana.parent@example.com", guardian_phone: "(702) 555-0199" });
    const [mail] = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_confirmation" });
    expect(mail.to_address).toBe("ana.parent@example.com");
    expect(mail.text_body).toMatch(/^Hi Ana,/);
    expect(mail.text_body).toContain("Maya Ortiz");

    // The confirmation page names where the e-mail went; the manage page shows the guardian and keeps them on a save.
    const confirmation = textOf((await v.get(`/event-registration/2?paymentSuccess=true&paymentIntentId=${intentId}`)).text);
    expect(confirmation).toContain("ana.parent@example.com");
    const link = /\/my-registration\/[A-Za-z0-9_-]{43}/.exec((await v.get(`/event-registration/2?paymentSuccess=true&paymentIntentId=${intentId}`)).text)![0];
    const manage = await visitor(t.app);
    const page = textOf((await manage.get(link)).text);
    expect(page).toContain("Parent or guardian: Ana Ortiz, ana.parent@example.com, (702) 555-0199");

    // 'Lost your confirmation?' with the guardian's address sends the link there.
    const lost = await visitor(t.app);
    const asked = await lost.form("/events/2/lost-confirmation", { email: "Ana.Parent@example.com" });
    expect(asked.status).toBeLessThan(500);
    // The link is sent after the answer (the answer never says whether an address is known): wait for its row.
    let links: { to_address: string }[] = [];
    for (let i = 0; i < 200 && links.length === 0; i++) {
      links = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_manage_link" });
      if (links.length === 0) await new Promise((r) => setTimeout(r, 25));
    }
    expect(links.map((m: { to_address: string }) => m.to_address)).toEqual(["ana.parent@example.com"]);
  });
});

describe("a request of the spec's shape, without the guardian block (issue 41 item 5)", () => {
  // Exactly the spec's registrationData: personal fields, day1-3, medicalReleaseAccepted, eventId, registrationType.
  const SPEC_DATA = {
    firstName: "Maya", lastName: "Ortiz", email: "maya.spec@example.com", phone: "(702) 555-0100", grade: "7th", gender: "Female", schoolName: "Desert Middle",
    clubName: "", emergencyContactName: "Luis Ortiz", emergencyContactPhone: "702-555-0123", specialRequirements: "", agrees: true,
    day1: false, day2: false, day3: false, medicalReleaseAccepted: true, eventId: 2, registrationType: "full",
  };

  it("the site's own form still requires it: a blank guardian block is refused, nothing held", async () => {
    const v = await visitor(t.app);
    const before = await t.db("registrations").count({ n: "*" }).first();
    const res = await start(v, { guardianName: "", guardianEmail: "", guardianPhone: "" });
    expect(res.status).toBe(400);
    expect(res.body.fieldErrors).toMatchObject({ guardianName: "This field is required" });
    expect(await t.db("registrations").count({ n: "*" }).first()).toEqual(before);
  });

  it("registers, and the contact is asked for afterwards: the e-mail, the manage page and the roster's `missing`, until it is given", async () => {
    const v = await visitor(t.app);
    const res = await v.post("/api/events/2/create-payment-intent").send({ option: "full", registrationData: SPEC_DATA, formSessionId: formId() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ success: true, amount: 299, isFreeRegistration: false });
    const reference = res.body.registrationId as string;
    expect(await t.db("registrations").where({ reference }).first()).toMatchObject({ guardian_name: null, guardian_email: null, contact_email: "maya.spec@example.com" });
    const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId })).body).toMatchObject({ status: "paid" });

    const [mail] = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_confirmation" });
    expect(mail.to_address).toBe("maya.spec@example.com");
    expect(mail.text_body).toContain("Still needed: Maya's parent or guardian contact (name, e-mail and phone), or word that Maya is 18 or older.");
    const [roster] = await t.db("registration_roster").where({ reference });
    expect(roster.missing).toBe("parent or guardian contact");

    // Once sent, the outbox keeps the text without the link's secret: the sent message has it.
    const link = /\/my-registration\/[A-Za-z0-9_-]{43}/.exec(sentText(t.mailDir, mail))![0];
    const manage = await visitor(t.app);
    const page = await manage.get(link);
    expect(textOf(page.text)).toContain("Missing: parent or guardian contact");
    expect(page.text).not.toMatch(/name="adult"[^>]*checked/);
    const version = /name="version" value="(\d+)"/.exec(page.text)![1]!;
    const saved = await manage.form(`${link}/details`, {
      firstName: "Maya", lastName: "Ortiz", email: "maya.spec@example.com", phone: "(702) 555-0100", grade: "7th", gender: "Female", schoolName: "Desert Middle",
      emergencyContactName: "Luis Ortiz", emergencyContactPhone: "702-555-0123", guardianName: "Ana Ortiz", guardianEmail: "ana.spec@example.com", guardianPhone: "(702) 555-0199",
      version,
    });
    expect(saved.status).toBe(303);
    expect(await t.db("registrations").where({ reference }).first()).toMatchObject({ guardian_name: "Ana Ortiz", guardian_email: "ana.spec@example.com" });
    expect((await t.db("registration_roster").where({ reference }))[0].missing).toBeNull();
    const after = textOf((await manage.get(link)).text);
    expect(after).toContain("Parent or guardian: Ana Ortiz, ana.spec@example.com, (702) 555-0199");
    expect(after).not.toContain("Missing: parent or guardian contact");
  });

  it("is reminded once before the freeze date, at the registration's address, with a private link (two runs, one e-mail)", async () => {
    const v = await visitor(t.app);
    const res = await v.post("/api/events/2/create-payment-intent").send({ option: "full", registrationData: { ...SPEC_DATA, email: "maya.remind@example.com" }, formSessionId: formId() });
    expect(res.status).toBe(200);
    const reference = res.body.registrationId as string;
    const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId })).body).toMatchObject({ status: "paid" });
    const original = await t.db("events").where({ id: 2 }).first("changes_freeze_at");
    await t.db("events").where({ id: 2 }).update({ changes_freeze_at: new Date(Date.now() + 3 * 86_400_000) });
    try {
      const remind = t.app.locals.sendFreezeReminders as () => Promise<number>;
      await Promise.all([remind(), remind()]);
      await remind();
    } finally {
      await t.db("events").where({ id: 2 }).update({ changes_freeze_at: original.changes_freeze_at });
    }
    const reminders = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_guardian_reminder" });
    expect(reminders).toHaveLength(1);
    expect(reminders[0].to_address).toBe("maya.remind@example.com");
    expect(reminders[0].text_body).toContain("still has no parent or guardian contact");
    const link = /\/my-registration\/[A-Za-z0-9_-]{43}/.exec(sentText(t.mailDir, reminders[0]))![0];
    expect(textOf((await (await visitor(t.app)).get(link)).text)).toContain("Missing: parent or guardian contact");
  });
});
