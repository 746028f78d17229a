import { describe, expect, it } from "vitest";
import { changesApp } from "./helpers.ts";
import { sentText } from "../../../support/mail.ts";
import request from "supertest";
import { textOf, visitor } from "../../../support/http.ts";
import { runDiscountCommand } from "../../../../src/cli/discount.ts";
import { parseDiscountArgs } from "../../../../src/cli/discountArgs.ts";
import { buildSite } from "../../../../src/shared/site.ts";
import { queuedLockingTransaction } from "../../../../src/db/rowQueue.ts";
import { findEvent } from "../../../../src/events/repository.ts";
import { eventKey, lockEvent } from "../../../../src/registrations/core/locks.ts";
import { findByReference, lockByReference } from "../../../../src/registrations/core/tables/registrations.ts";
import { familyDue, queueFamilyLinks } from "../../../../src/registrations/changes/familyLinks.ts";
import { familyLinkEmail, manageLinkEmail, registrationCanceledEmail, registrationChangedEmail } from "../../../../src/registrations/changes/email.ts";
import { lateRegistrationRefundEmail, registrationConfirmationEmail, registrationRefundedEmail } from "../../../../src/registrations/core/email.ts";
import { runExport } from "../../../../src/cli/export.ts";
import { Writable } from "node:stream";

// A paid team's families get their own link e-mail in the transaction that marks the team paid, once per athlete.

const t = changesApp();

let seq = 0;
let address = 10;
const SIZES = ["Small", "Medium", "Large", "XL", "XXL"];
// Kid1 is 18 (no waiver needed), the others are minors.
const teamAthlete = (i: number, tag: string) => ({ firstName: `Kid${i}`, lastName: "Nguyen", age: i === 1 ? 18 : 12, email: `kid${i}.${tag}@example.com`, shirtSize: SIZES[i % 5], parentName: `Parent ${i}`, parentPhoneNumber: "205-555-0100" });

/** A team (5, the minimum, unless said) for event 2, its places held and its PaymentIntent made: not paid yet. */
async function heldTeam(tag: string, size = 5) {
  const v = await visitor(t.app);
  const res = await v
    .post("/api/team-registration")
    .set("x-forwarded-for", `203.0.114.${address++}`)
    .send({
      eventId: 2,
      coachInfo: { firstName: "Dana", lastName: "Nguyen", email: `coach.${tag}@example.com`, phone: "(205) 555-0142", teamName: "Magic City WC" },
      athletes: Array.from({ length: size }, (_, i) => teamAthlete(i + 1, tag)),
      formSessionId: `family-links-form-${++seq}-${Date.now()}`,
    });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { v, reference: res.body.registrationId as string, intentId: (res.body.clientSecret as string).split("_secret_")[0]! };
}

const emailsOf = (reference: string, kind: string) => t.db("email_outbox").where({ reference: `registration:${reference}`, kind }).orderBy("id");
const tokenIn = (text: string) => /\/my-registration\/([A-Za-z0-9_-]{43})/.exec(text)![1]!;

/** Every family e-mail went to its own athlete's address and opens that athlete's family page, and only it. */
async function expectOneLinkPerFamily(reference: string, tag: string) {
  const mails = await emailsOf(reference, "registration_family_link");
  expect(mails.map((m: { to_address: string }) => m.to_address).sort()).toEqual([1, 2, 3, 4, 5].map((i) => `kid${i}.${tag}@example.com`));
  for (const mail of mails as { to_address: string; text_body: string; subject: string }[]) {
    const i = Number(/^kid(\d)/.exec(mail.to_address)![1]);
    const page = await request(t.app).get(`/my-registration/${tokenIn(sentText(t.mailDir, mail))}`).set("x-forwarded-for", `198.19.0.${address++ % 250}`);
    expect(page.status).toBe(200);
    const text = textOf(page.text);
    expect(text).toContain(`Kid${i} Nguyen`);
    expect(text).toContain("Registered and paid for by Dana Nguyen.");
    for (const other of [1, 2, 3, 4, 5].filter((n) => n !== i)) expect(text).not.toContain(`Kid${other} Nguyen`);
  }
  return mails as { to_address: string; text_body: string; subject: string }[];
}

describe("a team's families get their own link e-mail when the team is paid", () => {
  it("queues one e-mail per athlete, to the roster's address, greeting the family, with the days, what is missing and until when", async () => {
    const { v, reference, intentId } = await heldTeam("paid");
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId, option: "team" })).body.status).toBe("paid");

    const mails = await expectOneLinkPerFamily(reference, "paid");
    const minor = mails.find((m) => m.to_address === "kid2.paid@example.com")!;
    expect(minor.subject).toBe("Kid2 Nguyen: National Champ Camp with Magic City WC");
    for (const part of [
      "Hi Parent 2,",
      "Dana Nguyen has registered Kid2 Nguyen for National Champ Camp with Magic City WC",
      // Event 2 starts on June 5, 2027 (Los Angeles): the default freeze date is 7 days before, at 00:00 there.
      "What we need from you by the end of May 28 (Pacific time):",
      "- sign the waiver and medical release (a parent or legal guardian: Kid2 is under 18)",
      "After that date only the medical notes can change.",
      "- Saturday, June 5: 9:00 AM - 4:00 PM PDT",
      "- Monday, June 7: 9:00 AM - 4:00 PM PDT",
    ]) {
      expect(minor.text_body, part).toContain(part);
    }
    expect(minor.text_body).not.toContain("Hi Dana");
    // An athlete of 18 is greeted by name; nothing is missing for them.
    const adult = mails.find((m) => m.to_address === "kid1.paid@example.com")!;
    expect(adult.text_body).toContain("Hi Kid1,");
    expect(adult.text_body).toContain("Nothing else is missing for Kid1.");
    expect(adult.text_body).not.toContain("- sign the");

    // The coach's confirmation is as before, and says the families were e-mailed.
    const [coach] = await emailsOf(reference, "team_registration_confirmation");
    expect(coach.to_address).toBe("coach.paid@example.com");
    expect(coach.text_body).toContain("Hi Dana,");
    expect(coach.text_body).toContain("We've e-mailed each athlete's family (at the athlete's address on the roster) its own private link");
    expect(coach.html_body).toContain("We've e-mailed each athlete's family");
    // One family link row per athlete, each limited to its athlete.
    const links = await t.db("registration_manage_links").where({ registration_id: (await t.db("registrations").where({ reference }).first()).id, sent_by: "family" });
    expect(links.map((l: { athlete_position: number }) => Number(l.athlete_position)).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it("still queues five when the webhook and the return page settle the payment at once, and again", async () => {
    t.fake.autoDeliver = false;
    const { v, reference, intentId } = await heldTeam("race");
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    const succeeded = t.fake.events.filter((e) => e.type === "payment_intent.succeeded" && (e.data.object as { id: string }).id === intentId);
    expect(succeeded).toHaveLength(1);
    const [webhook, returned] = await Promise.all([t.fake.deliver(succeeded[0]!), v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId, option: "team" })]);
    expect(webhook).toBe(200);
    expect(returned.body.status).toBe("paid");
    // Stripe delivers an event again; the visitor reloads the return.
    expect(await t.fake.deliver(succeeded[0]!)).toBe(200);
    expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId, option: "team" })).body.status).toBe("paid");
    await expectOneLinkPerFamily(reference, "race");
    expect(await emailsOf(reference, "team_registration_confirmation")).toHaveLength(1);
  });

  it("queues each athlete's e-mail once however often the paid step runs (the claim per athlete)", async () => {
    const { v, reference, intentId } = await heldTeam("again");
    t.fake.confirm(intentId, { number: "4242 4242 4242 4242" });
    expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId, option: "team" })).body.status).toBe("paid");
    const event = (await findEvent(t.db, 2))!;
    const deps = { site: buildSite(t.config.brandName, {}), publicUrl: t.config.publicUrl ?? "http://localhost" };
    // The step again, as a retried settlement or another instance would run it: under the aggregate's locks, at once.
    const again = () =>
      queuedLockingTransaction(t.db, eventKey(2), async (trx) => {
        await lockEvent(trx, 2);
        const r = (await lockByReference(trx, reference))!;
        return queueFamilyLinks(trx, deps, event, r, new Date());
      });
    expect(await Promise.all([again(), again()])).toEqual([0, 0]);
    expect(await emailsOf(reference, "registration_family_link")).toHaveLength(5);
  });

  it("e-mails the families of a team a 100% code makes free", async () => {
    const cmd = parseDiscountArgs("create TEAMFREE100 --percent 100 --for team".split(" "), new Date());
    if ("error" in cmd) throw new Error(cmd.error);
    await runDiscountCommand(t.db, cmd, new Date());
    t.fake.autoDeliver = false;
    const { v, reference } = await heldTeam("free");
    const applied = await v.post("/api/validate-discount").send({ discountCode: "TEAMFREE100", originalPrice: 995, eventId: 2, option: "team" });
    expect(applied.body, JSON.stringify(applied.body)).toMatchObject({ valid: true });
    const complete = () => v.post("/api/events/2/stripe-payment-success").send({ freeRegistration: true, discountCode: "TEAMFREE100", eventId: 2, amount: 0, option: "team", paymentIntentId: `free_registration_${Date.now()}` });
    const [first, second] = await Promise.all([complete(), complete()]);
    expect([first.body.status, second.body.status]).toEqual(["paid", "paid"]);
    await expectOneLinkPerFamily(reference, "free");
  });

  it("lets the coach send one family its link again", async () => {
    const { v, reference, intentId } = await heldTeam("resend");
    t.fake.confirm(intentId, { number: "4242 4242 4242 4242" });
    expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId, option: "team" })).body.status).toBe("paid");
    const [coach] = await emailsOf(reference, "team_registration_confirmation");
    const path = `/my-registration/${tokenIn(sentText(t.mailDir, coach))}`;
    const agent = request.agent(t.app);
    const ip = `198.19.1.${address++ % 250}`;
    const page = await agent.get(path).set("x-forwarded-for", ip);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
    expect((await agent.post(`${path}/family`).set("x-forwarded-for", ip).type("form").send({ athlete: "3", _csrf: csrf })).status).toBe(303);
    const mails = await emailsOf(reference, "registration_family_link");
    expect(mails).toHaveLength(6);
    const resent = mails.at(-1);
    expect(resent.to_address).toBe("kid3.resend@example.com");
    expect(resent.text_body).toContain("Hi Parent 3,");
    expect(tokenIn(sentText(t.mailDir, resent))).not.toBe(tokenIn(sentText(t.mailDir, mails.find((m: { to_address: string }) => m.to_address === "kid3.resend@example.com"))));
  });
});

/** A paid team; its coach's link and each family's link (from the e-mails queued at payment), by athlete number. */
async function paidTeam(tag: string, size = 5) {
  const { v, reference, intentId } = await heldTeam(tag, size);
  t.fake.confirm(intentId, { number: "4242 4242 4242 4242" });
  expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId, option: "team" })).body.status).toBe("paid");
  const [coach] = await emailsOf(reference, "team_registration_confirmation");
  const families = new Map<number, string>();
  for (const m of (await emailsOf(reference, "registration_family_link")) as { to_address: string; text_body: string }[]) families.set(Number(/^kid(\d+)/.exec(m.to_address)![1]), `/my-registration/${tokenIn(sentText(t.mailDir, m))}`);
  return { reference, coachPath: `/my-registration/${tokenIn(sentText(t.mailDir, coach))}`, families };
}

/** A browser without JavaScript on a manage page: its own address, cookie and CSRF token; posts forms. */
async function browserAt(path: string) {
  const agent = request.agent(t.app);
  const ip = `198.19.2.${address++ % 250}`;
  const page = await agent.get(path).set("x-forwarded-for", ip);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
  return {
    page,
    version: /name="version" value="(\d+)"/.exec(page.text)?.[1] ?? "",
    get: (url = path) => agent.get(url).set("x-forwarded-for", ip),
    post: (url: string, fields: Record<string, string>) => agent.post(url).set("x-forwarded-for", ip).type("form").send({ ...fields, _csrf: csrf }),
  };
}

const kidFields = (i: number, tag: string, over: Record<string, string> = {}) => ({
  "athlete[firstName]": `Kid${i}`, "athlete[lastName]": "Nguyen", "athlete[age]": "12", "athlete[email]": `kid${i}.${tag}@example.com`, "athlete[shirtSize]": SIZES[i % 5]!,
  "athlete[parentName]": `Parent ${i}`, "athlete[parentPhoneNumber]": "205-555-0100", ...over,
});

describe("after the freeze date a family's link", () => {
  it("changes only the medical notes, shows the details as they stand and says why", async () => {
    const { reference, families } = await paidTeam("frozen");
    await t.db("events").where({ id: 2 }).update({ changes_freeze_at: new Date(Date.now() - 60_000) });
    const family = await browserAt(families.get(2)!);
    const text = textOf(family.page.text);
    expect(text).toMatch(/Changes had to be made by .* \(Pacific time\): only the medical notes can still change/);
    expect(text).not.toContain("can still be canceled");
    // The details as stored, not as fields.
    expect(family.page.text).not.toContain('name="athlete[firstName]"');
    for (const part of ["Kid2 Nguyen", "kid2.frozen@example.com", "Parent 2, 205-555-0100"]) expect(text).toContain(part);
    const posted = await family.post(`${families.get(2)!}/details`, { ...kidFields(2, "frozen", { "athlete[firstName]": "Renamed", "athlete[shirtSize]": "XXL" }), specialRequirements: "Inhaler in the bag", version: family.version });
    expect(posted.status).toBe(303);
    const kid2 = await t.db("registration_athletes").where({ registration_id: (await t.db("registrations").where({ reference }).first()).id, position: 2 }).first();
    expect(kid2).toMatchObject({ first_name: "Kid2", shirt_size: SIZES[2], special_requirements: "Inhaler in the bag" });
  });
});

describe("the freeze-date reminder", () => {
  it("does not follow the link e-mail of a team paid inside the reminders' window", async () => {
    await t.db("events").where({ id: 2 }).update({ changes_freeze_at: new Date(Date.now() + 3 * 86_400_000) });
    const { reference } = await paidTeam("window");
    await (t.app.locals.sendFreezeReminders as () => Promise<number>)();
    expect(await emailsOf(reference, "registration_family_reminder")).toHaveLength(0);
    expect(await emailsOf(reference, "registration_family_link")).toHaveLength(5);
  });
});

describe("npm run export -- registrations", () => {
  it("shows who signed which waiver version and who is still missing it: 1 signed and 5 missing", async () => {
    const { reference, families } = await paidTeam("export", 6);
    // Kid1 is 18: the waiver is asked of minors; the family of Kid3 signs.
    const family = await browserAt(families.get(3)!);
    expect((await family.post(`${families.get(3)!}/waiver`, { signedName: "Parent Three", relationship: "Parent", agrees: "on" })).status).toBe(303);
    // A second tab's post keeps the first signature.
    const again = await family.post(`${families.get(3)!}/waiver`, { signedName: "Someone Else", relationship: "Legal guardian", agrees: "on" });
    expect(again.status).toBe(409);
    expect(textOf(again.text)).toContain("The waiver and medical release are already signed (by Parent Three).");
    const chunks: Buffer[] = [];
    await runExport(t.db, { name: "registrations", eventId: 2 }, new Writable({ write: (c: Buffer, _e, done) => (chunks.push(Buffer.from(c)), done()) }));
    const lines = Buffer.concat(chunks).toString("utf8").split("\r\n").filter((l) => l.startsWith(`${reference},`));
    expect(lines).toHaveLength(6);
    const signed = lines.filter((l) => l.includes(',2026-11-26,"Parent Three, Parent",'));
    expect(signed).toHaveLength(1);
    expect(signed[0]).toContain("Kid3 Nguyen");
    expect(lines.filter((l) => !l.includes(",2026-11-26,"))).toHaveLength(5);
    // The last column says what is missing: the waiver of each unsigned minor; nothing for Kid1 (18) or Kid3.
    // The missing column says what is missing (the deposit columns after it are empty for a team paid in full).
    const missing = lines.filter((l) => /,waiver and medical release(,|$)/.test(l));
    expect(missing).toHaveLength(4);
    expect(missing.some((l) => l.includes("Kid1 ") || l.includes("Kid3 "))).toBe(false);
    const [row] = await t.db("registration_roster").where({ reference, athlete_name: "Kid3 Nguyen" });
    expect(row).toMatchObject({ waiver_version: "2026-11-26", missing: null });
  });
});

describe("who may sign a waiver is decided from the athlete's age, again when it changes", () => {
  it("voids an athlete's own signature when the family link makes the athlete a minor: page, roster, export, and the family asked again", async () => {
    const { reference, coachPath, families } = await paidTeam("minor-again");
    const kid2 = families.get(2)!;
    const family = await browserAt(kid2);
    // At 14 the athlete cannot sign for themself.
    const refused = await family.post(`${kid2}/waiver`, { signedName: "Kid Two", relationship: "Athlete (18 or older)", agrees: "on" });
    expect(refused.status).toBe(400);
    expect(textOf(refused.text)).toContain("An athlete under 18 needs a parent or legal guardian to sign.");
    // The probe's path: age set to 18, the athlete signs, age set back to 14.
    expect((await family.post(`${kid2}/details`, { ...kidFields(2, "minor-again", { "athlete[age]": "18" }), version: family.version })).status).toBe(303);
    expect((await family.post(`${kid2}/waiver`, { signedName: "Kid Two", relationship: "Athlete (18 or older)", agrees: "on" })).status).toBe(303);
    const adult = await browserAt(kid2);
    expect(textOf(adult.page.text)).toContain("Signed by Kid Two (Athlete (18 or older))");
    const back = await adult.post(`${kid2}/details`, { ...kidFields(2, "minor-again", { "athlete[age]": "14" }), version: adult.version });
    expect(back.status).toBe(303);
    const page = textOf((await adult.get()).text);
    expect(page).toContain("Kid2 is under 18 now, so Kid2's own signature no longer counts: a parent or legal guardian must sign the waiver and medical release.");
    expect(page).not.toContain("Signed by Kid Two");
    expect(page).toContain("An athlete under 18 needs a parent or legal guardian to sign.");
    const id = (await t.db("registrations").where({ reference }).first()).id;
    expect(await t.db("registration_athletes").where({ registration_id: id, position: 2 }).first()).toMatchObject({ age: 14, waiver_version: null, waiver_signer_relationship: null });
    const [row] = await t.db("registration_roster").where({ reference, athlete_name: "Kid2 Nguyen" });
    expect(row).toMatchObject({ waiver_version: null, missing: "waiver and medical release" });
    const chunks: Buffer[] = [];
    await runExport(t.db, { name: "registrations", eventId: 2 }, new Writable({ write: (c: Buffer, _e, done) => (chunks.push(Buffer.from(c)), done()) }));
    const line = Buffer.concat(chunks).toString("utf8").split("\r\n").find((l) => l.startsWith(`${reference},`) && l.includes("Kid2 Nguyen"))!;
    expect(line).toMatch(/,waiver and medical release(,|$)/);
    // The coach's roster says so; the family is asked again for a parent's signature.
    const coach = textOf((await request(t.app).get(coachPath).set("x-forwarded-for", `198.19.3.${address++ % 250}`)).text);
    expect(coach).toContain("Waiver not signed yet");
    const [asked] = await emailsOf(reference, "registration_family_reminder");
    expect(asked.to_address).toBe("kid2.minor-again@example.com");
    expect(asked.text_body).toContain("- sign the waiver and medical release (a parent or legal guardian: Kid2 is under 18)");
    const [changed] = (await emailsOf(reference, "registration_changed")).slice(-1);
    expect(changed.text_body).toContain("the athlete's own signature of the waiver voided (under 18)");
    // A parent signs through the new link.
    const again = await browserAt(`/my-registration/${tokenIn(sentText(t.mailDir, asked))}`);
    expect((await again.post(`/my-registration/${tokenIn(sentText(t.mailDir, asked))}/waiver`, { signedName: "Parent Two", relationship: "Parent", agrees: "on" })).status).toBe(303);
    expect((await t.db("registration_roster").where({ reference, athlete_name: "Kid2 Nguyen" }))[0]).toMatchObject({ missing: null });
  });
});

describe("every registration e-mail", () => {
  it("greets the contact (a family, the coach or the athlete), names the athlete or team, and lists the days with the hours in the event's zone", async () => {
    const { reference } = await paidTeam("mails");
    const event = (await findEvent(t.db, 2))!;
    const team = (await findByReference(t.db, reference))!;
    const kid2 = team.athletes[1]!;
    // One athlete's receipt, as a coach's cancellation of one athlete makes it (manage/cancel.ts).
    const one = { ...team, kind: "individual" as const, athletes: [kid2] };
    const site = buildSite(t.config.brandName, {});
    const due = await t.db.transaction((trx) => familyDue(trx, event, kid2, new Date()));
    const mails = [
      [registrationConfirmationEmail(site, event, team, undefined, "http://x/my-registration/a"), "Hi Dana,", "Magic City WC"],
      [familyLinkEmail(site, event, team, kid2, "http://x/my-registration/b", due), "Hi Parent 2,", "Kid2 Nguyen"],
      [familyLinkEmail(site, event, team, kid2, "http://x/my-registration/b", due, true), "Hi Parent 2,", "Kid2 Nguyen"],
      [manageLinkEmail(site, event, team, "http://x/my-registration/c"), "Hi Dana,", "Magic City WC"],
      [registrationChangedEmail(site, event, team, ["Kid2 Nguyen: shirt size"]), "Hi Dana,", "Kid2 Nguyen"],
      [registrationCanceledEmail(site, event, one, { cents: 19900, percent: 100, paidCents: 19900 }, new Date()), "Hi Dana,", "Kid2 Nguyen"],
      [registrationCanceledEmail(site, event, team, { cents: 99500, percent: 100, paidCents: 99500 }, new Date()), "Hi Dana,", "Magic City WC"],
      [registrationRefundedEmail(site, event, team, [99500]), "Hi Dana,", "Magic City WC's 5 athletes"],
      [lateRegistrationRefundEmail(site, event, team, 99500), "Hi Dana,", "Magic City WC's 5 athletes"],
    ] as const;
    for (const [mail, greeting, named] of mails) {
      expect(mail.text.startsWith(`${greeting}\n`), `${mail.kind} greets`).toBe(true);
      expect(mail.text, `${mail.kind} names`).toContain(named);
      for (const day of ["- Saturday, June 5: 9:00 AM - 4:00 PM PDT", "- Sunday, June 6: 9:00 AM - 4:00 PM PDT", "- Monday, June 7: 9:00 AM - 4:00 PM PDT"]) expect(mail.text, `${mail.kind}: ${day}`).toContain(day);
    }
  });
});
