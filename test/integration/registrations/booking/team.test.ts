import { describe, expect, it } from "vitest";
import { bookingApp } from "./helpers.ts";
import { FAMILIES_EMAILED } from "../../../../src/shared/registrations/teamRules.ts";
import request from "supertest";
import { backend } from "../../../support/app.ts";
import { textOf, visitor } from "../../../support/http.ts";
import type { JobQueue } from "../../../../src/db/jobQueue.ts";
import { placesLeft } from "../../../../src/events/repository.ts";
import { insertCode } from "../../../../src/discounts/repository.ts";

// Behind one proxy, as in production: the crowd tests give each coach their own address (X-Forwarded-For).
const t = bookingApp();

type V = Awaited<ReturnType<typeof visitor>>;
const COACH = { firstName: "Dana", lastName: "Brooks", email: "coach.brooks@example.com", phone: "(205) 555-0142", teamName: "Steel City WC" };
const SIZES = ["Small", "Medium", "Large", "XL", "XXL", "3XL", "4XL"];
const athlete = (i: number, over: Record<string, unknown> = {}) => ({
  firstName: `Kid${i}`,
  lastName: "Brooks",
  age: 10 + (i % 9),
  email: `kid${i}@example.com`,
  shirtSize: SIZES[i % SIZES.length],
  parentName: `Parent ${i}`,
  parentPhoneNumber: "205-555-0100",
  ...over,
});
const team = (n: number) => Array.from({ length: n }, (_, i) => athlete(i + 1));
let formSeq = 0;
const newFormId = () => `team-form-session-${String(++formSeq).padStart(6, "0")}-${Date.now()}`;
const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0]!;

const apiTeam = (v: V, body: Record<string, unknown>) =>
  v.post("/api/team-registration").send({ eventId: 2, coachInfo: COACH, athletes: team(5), pricePerAthlete: 199, totalAmount: 995, discountedAmount: 995, discountCode: null, formSessionId: newFormId(), ...body });

async function stored(reference: string) {
  const registration = await t.db("registrations").where({ reference }).first();
  const athletes = await t.db("registration_athletes").where({ registration_id: registration.id }).orderBy("position");
  const payments = await t.db("payments").where({ kind: "registration", reference });
  const emails = await t.db("email_outbox").where({ reference: `registration:${reference}` }).orderBy("id");
  return { registration, athletes, payments, emails };
}
const count = async (table: string) => Number((await t.db(table).count({ n: "*" }).first())!.n);
const setCapacity = (id: number, capacity: number) => t.db("events").where({ id }).update({ capacity });

describe("team registration pages", () => {
  it("renders the screen at /team-register/{id} and /team-registration?eventId= (also event=, default event 1)", async () => {
    const res = await request(t.app).get("/team-register/2").expect(200);
    const text = textOf(res.text);
    expect(text).toContain("Team Registration");
    expect(text).toContain("National Champ Camp");
    expect(text).toContain("$199.00 per athlete");
    expect(text).toContain("Save $100.00 per athlete");
    expect(text).toContain("Minimum 5 athletes required");
    expect(text).toContain("Coach Information");
    expect(text).toContain("Team Name (optional)");
    expect(text).toMatch(/Athlete 1 .*Athlete 2 /);
    expect(text).not.toContain("Athlete 3");
    expect(text).toContain("Registration Summary");
    expect(text).toContain("Register Team - $0.00");
    for (const size of SIZES) expect(res.text).toContain(`<option value="${size}">${size}</option>`);
    expect(res.text).toMatch(/<form [^>]*action="\/team-register\/2" method="post"/);
    expect(res.text).toContain('name="athletes[1][parentPhoneNumber]"');
    expect(res.text).toMatch(/<button type="submit" value="add"[^>]*name="intent">Add athlete<\/button>/);
    expect(res.text).toMatch(/<button type="submit" value="1"[^>]*aria-label="Remove Athlete 2" name="remove">Remove<\/button>/);

    expect(textOf((await request(t.app).get("/team-registration?eventId=3").expect(200)).text)).toContain("Texas Recruiting Clinic");
    expect(textOf((await request(t.app).get("/team-registration?event=2").expect(200)).text)).toContain("National Champ Camp");
    expect(textOf((await request(t.app).get("/team-registration").expect(200)).text)).toContain("Birmingham Slam Camp");
    for (const path of ["/team-register/999", "/team-register/abc", "/team-registration?eventId=0"]) {
      const nf = await request(t.app).get(path).expect(404);
      expect(textOf(nf.text), path).toContain("The event you are trying to register for does not exist.");
    }
  });

  it("the home page's team modal, /team-events and the event page's Team Registration box lead here", async () => {
    const home = await request(t.app).get("/").expect(200);
    for (const id of [1, 2, 3]) expect(home.text).toContain(`href="/team-registration?eventId=${id}"`);
    const choose = await request(t.app).get("/team-events").expect(200);
    expect(choose.text).toContain('href="/team-registration?eventId=2"');
    const detail = await request(t.app).get("/events/2").expect(200);
    expect(detail.text).toContain('href="/team-register/2"');
  });

  it("announces a team saving only when it is a real one: event 4's $1.00 is not, event 2's $100.00 is", async () => {
    for (const path of ["/team-register/4", "/events/4"]) {
      const text = textOf((await request(t.app).get(path).expect(200)).text);
      expect(text, path).not.toMatch(/Save \$1\.00/i);
      expect(text, path).toContain("$199.00");
    }
    expect(textOf((await request(t.app).get("/team-register/2").expect(200)).text)).toContain("Save $100.00 per athlete");
    expect(textOf((await request(t.app).get("/events/2").expect(200)).text)).toContain("Save $100.00 per athlete");
  });

  it("says a closed event is closed, and an event with fewer than 5 places left has no room for a team", async () => {
    await t.db("events").where({ id: 1 }).update({ registration_closes_at: new Date(Date.now() - 1000) });
    try {
      const closed = textOf((await request(t.app).get("/team-register/1")).text);
      expect(closed).toContain("Registration Closed");
      expect(closed).not.toContain("Register Team");
      const v = await visitor(t.app);
      const api = await apiTeam(v, { eventId: 1 });
      expect(api.status).toBe(409);
      expect(api.body.error).toBe("Registration for this event is closed.");
    } finally {
      await t.db("events").where({ id: 1 }).update({ registration_closes_at: null });
    }
    const taken = 200 - (await placesLeft(t.db, 4, new Date()));
    await setCapacity(4, taken + 4);
    try {
      const small = textOf((await request(t.app).get("/team-register/4")).text);
      expect(small).toContain("Only 4 places are left at this event, not enough for your team of 5 athletes.");
    } finally {
      await setCapacity(4, 200);
    }
  });
});

describe("the section 5 team rules, word for word, on the JSON call", () => {
  const refused = async (body: Record<string, unknown>) => {
    const v = await visitor(t.app);
    const before = await count("registrations");
    const res = await apiTeam(v, body);
    expect(res.status).toBe(400);
    expect(await count("registrations")).toBe(before);
    return res.body as { title: string; error: string; fieldErrors: Record<string, string> };
  };

  it("coach fields, coach e-mail, team size, athlete e-mail, age, at most 60", async () => {
    let b = await refused({ coachInfo: { ...COACH, firstName: " ", phone: "" } });
    expect(b.title).toBe("Coach Information Required");
    expect(b.error).toBe("Please fill in: First Name, Phone");
    expect(b.fieldErrors["coachInfo.firstName"]).toBe("This field is required");

    b = await refused({ coachInfo: { ...COACH, email: "coach@nowhere" } });
    expect(b).toMatchObject({ title: "Invalid Email", error: "Please enter a valid email address for the coach." });

    b = await refused({ athletes: [...team(4), athlete(9, { parentName: "" }), athlete(10, { age: "" })] });
    expect(b).toMatchObject({ title: "Minimum Team Size Required", error: "You have 4 complete athletes. Need at least 5. 2 athletes have missing information." });
    b = await refused({ athletes: team(4) });
    expect(b.error).toBe("You have 4 complete athletes. Need at least 5. Please add more athletes.");

    b = await refused({ athletes: [...team(4), athlete(5, { firstName: "Sam", lastName: "Ortiz", email: "sam-at-home" })] });
    expect(b).toMatchObject({ title: "Registration Error", error: "Please enter a valid email address for Sam Ortiz." });
    expect(b.fieldErrors["athletes.4.email"]).toBe("Please enter a valid email address for Sam Ortiz.");

    // 'Ages 10+ through high school': 10 to 19, as every page says.
    for (const age of [6, 9, 20, 12.5, "ten"]) {
      b = await refused({ athletes: [...team(4), athlete(5, { age })] });
      expect(b.fieldErrors["athletes.4.age"], String(age)).toBe("Athletes must be 10 to 19 years old (ages 10+ through high school): enter the age in whole years");
    }
    b = await refused({ athletes: team(61) });
    expect(b.error).toBe("A team can have at most 60 athletes. Please register the rest as a second team.");
  });

  it("trims every value and registers only the complete athletes", async () => {
    const v = await visitor(t.app);
    const res = await apiTeam(v, {
      coachInfo: { ...COACH, firstName: "  Dana ", teamName: "   " },
      athletes: [...team(4), athlete(5, { firstName: " Sam ", email: " sam@example.com " }), athlete(6, { shirtSize: "" }), {}],
    });
    expect(res.status).toBe(200);
    const s = await stored(res.body.registrationId);
    expect(s.registration).toMatchObject({ contact_first_name: "Dana", team_name: null, places: 5, kind: "team" });
    expect(s.athletes).toHaveLength(5);
    expect(s.athletes[4]).toMatchObject({ first_name: "Sam", email: "sam@example.com" });
  });
});

describe("holding and paying a team", () => {
  it("accepts 5 at $995 whatever prices the browser sends; a double submission holds one team", async () => {
    t.fake.autoDeliver = false;
    const v = await visitor(t.app);
    const formSessionId = newFormId();
    const res = await apiTeam(v, { formSessionId, pricePerAthlete: 1, totalAmount: 5, discountedAmount: 0.5 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, title: "Team Registration Ready!", amount: 995, athletes: 5, pricePerAthlete: 199, checkoutUrl: "/stripe-checkout?eventId=2&eventName=National%20Champ%20Camp&option=team" });
    const intentId = intentIdOf(res.body.clientSecret);
    expect(t.fake.intents.get(intentId)).toMatchObject({ amount: 99500, metadata: { kind: "registration", reference: res.body.registrationId } });
    const again = await apiTeam(v, { formSessionId });
    expect(again.body.registrationId).toBe(res.body.registrationId);
    expect(intentIdOf(again.body.clientSecret)).toBe(intentId);
    // The spec's payload has no form id: the coach's held team is continued, not doubled.
    const third = await apiTeam(v, { formSessionId: undefined, athletes: team(6) });
    expect(third.body).toMatchObject({ registrationId: res.body.registrationId, amount: 1194 });
    expect(await t.db("registrations").where({ form_session_id: formSessionId })).toHaveLength(1);
    const s = await stored(res.body.registrationId);
    expect(s.payments).toHaveLength(1);
    expect(s.registration).toMatchObject({ status: "pending_payment", places: 6, amount_cents: 119400, list_price_cents: 119400, package_code: "team" });
  });

  it("two simultaneous submissions of the same form hold one team", async () => {
    const v = await visitor(t.app);
    const formSessionId = newFormId();
    const answers = await Promise.all([apiTeam(v, { formSessionId, eventId: 3 }), apiTeam(v, { formSessionId, eventId: 3 })]);
    // Whichever comes second either continues the same team or, when it started before the first was recorded in
    // the session, is told the form expired: never a second team, never an error page.
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((a) => a.body.registrationId)).size).toBe(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.status).toBe(409);
      expect(a.body.error).toBe("This registration form has expired. Please reload the page and try again.");
    }
    expect(await t.db("registrations").where({ form_session_id: formSessionId })).toHaveLength(1);
    expect(await t.db("payments").where({ reference: ok[0]!.body.registrationId })).toHaveLength(1);
  });

  it("pays a team of 6 at $1,194 once: the whole team paid, the roster e-mail with its .ics, the roster view, 6 places fewer", async () => {
    t.fake.autoDeliver = false;
    const v = await visitor(t.app);
    const before = await placesLeft(t.db, 2, new Date());
    const res = await apiTeam(v, { athletes: team(6) });
    expect(res.body.amount).toBe(1194);
    expect(await placesLeft(t.db, 2, new Date())).toBe(before - 6);
    const reference = res.body.registrationId as string;

    const page = await v.get("/stripe-checkout?eventId=2&eventName=National%20Champ%20Camp&option=team&clientSecret=pi_forged_secret_x");
    expect(page.status).toBe(200);
    const text = textOf(page.text);
    expect(text).toContain("Complete Your Registration");
    expect(text).toContain("National Champ Camp · Team Registration");
    expect(text).toContain("Steel City WC");
    expect(text).toContain("Kid6 Brooks (4XL)");
    expect(text).toContain("$1,194.00");
    expect(text).toContain("Have a discount code?");
    expect(page.text).not.toContain("pi_forged_secret_x");
    expect(page.text).not.toContain('class="site-header');
    // Another visitor has no team to pay.
    const other = await visitor(t.app);
    const none = await other.get("/stripe-checkout?eventId=2&option=team");
    expect(none.status).toBe(404);
    expect(textOf(none.text)).toContain("Team registration data not found. Please restart the registration process.");

    const intentId = intentIdOf(res.body.clientSecret);
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await other.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId, option: "team" })).status).toBe(403);
    const done = await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId, option: "team" });
    expect(done.body).toMatchObject({ success: true, status: "paid" });
    for (const event of t.fake.events.filter((e) => (e.data.object as { id?: string }).id === intentId && e.type === "payment_intent.succeeded")) {
      expect(await t.fake.deliver(event)).toBe(200);
    }

    const s = await stored(reference);
    expect(s.registration).toMatchObject({ status: "paid", amount_paid_cents: 119400, places: 6 });
    expect(s.payments).toHaveLength(1);
    // The coach's confirmation, and each athlete's family its own link (test/integration/registrations/changes/familyLinks.test.ts).
    expect(s.emails.map((e: { kind: string }) => e.kind).sort()).toEqual([...Array<string>(6).fill("registration_family_link"), "team_registration_confirmation"]);
    const email = s.emails.find((e: { kind: string }) => e.kind === "team_registration_confirmation");
    expect(email).toMatchObject({ kind: "team_registration_confirmation", to_address: "coach.brooks@example.com" });
    for (const part of [reference, "Steel City WC", "National Champ Camp", "June 5-7, 2027", "$1,194.00", "1. Kid1 Brooks, age 11, shirt Medium", "6. Kid6 Brooks, age 16, shirt 4XL"]) {
      expect(email.text_body, part).toContain(part);
    }
    const [ics] = JSON.parse(email.attachments_json);
    expect(ics.filename).toBe(`${reference}.ics`);
    expect(ics.content.match(/BEGIN:VEVENT/g)).toHaveLength(3);

    const roster = await t.db("registration_roster").where({ reference }).orderBy("athlete_name");
    expect(roster).toHaveLength(6);
    for (const row of roster) expect(row).toMatchObject({ kind: "team", team_name: "Steel City WC", status: "paid", package: "Team Registration", contact_email: "coach.brooks@example.com" });
    expect(roster.map((r: { grade_or_age: string }) => r.grade_or_age)).toContain("16");
    expect(await placesLeft(t.db, 2, new Date())).toBe(before - 6);
    const complete = textOf((await v.get("/stripe-checkout?eventId=2&option=team&success=true")).text);
    expect(complete).toContain("Registration Complete!");
    expect(complete).toContain(FAMILIES_EMAILED);
    expect(textOf((await other.get("/stripe-checkout?eventId=2&option=team&success=true")).text)).not.toContain("Registration Complete!");
  });

  it("refuses a team of 5 when 3 places are left, with a clear message, writing nothing", async () => {
    const taken = 200 - (await placesLeft(t.db, 3, new Date()));
    await setCapacity(3, taken + 3);
    try {
      const v = await visitor(t.app);
      const before = { r: await count("registrations"), a: await count("registration_athletes"), p: await count("payments") };
      const res = await apiTeam(v, { eventId: 3 });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ success: false, title: "Registration Error", error: "Only 3 places are left at this event, not enough for your team of 5 athletes. Please register fewer athletes or choose another event." });
      expect({ r: await count("registrations"), a: await count("registration_athletes"), p: await count("payments") }).toEqual(before);
      expect(await placesLeft(t.db, 3, new Date())).toBe(3);
    } finally {
      await setCapacity(3, 200);
    }
  });

  it("answers 'Payment Setup Error' when Stripe fails and gives the places back", async () => {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- kept only to be put back on t.gateway, never called apart
    const original = t.gateway.createIntent;
    t.gateway.createIntent = async () => {
      throw new Error("Stripe is down");
    };
    try {
      const v = await visitor(t.app);
      const left = await placesLeft(t.db, 4, new Date());
      const res = await apiTeam(v, { eventId: 4 });
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ title: "Payment Setup Error", error: "Unable to set up payment. Please try again." });
      expect(await placesLeft(t.db, 4, new Date())).toBe(left);
    } finally {
      t.gateway.createIntent = original;
    }
  });

  it("a team code applies on the team checkout; an individual-only code is refused for a team", async () => {
    const now = new Date();
    await insertCode(t.db, { code: "TEAM10", type: "percent", value: 10, eventId: null, kind: "team", maxRedemptions: null, startsAt: null, expiresAt: null }, now);
    await insertCode(t.db, { code: "SOLO20", type: "percent", value: 20, eventId: null, kind: "individual", maxRedemptions: null, startsAt: null, expiresAt: null }, now);
    t.fake.autoDeliver = false;
    const v = await visitor(t.app);
    const res = await apiTeam(v, { eventId: 1 });
    const solo = await v.post("/api/validate-discount").send({ discountCode: "SOLO20", eventId: 1, option: "team" });
    expect(solo.status).toBe(422);
    expect(solo.body.message).toBe("This discount code is for individual registrations only.");
    const applied = await v.post("/api/validate-discount").send({ discountCode: "team10", eventId: 1, option: "team", originalPrice: 1 });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ valid: true, title: "Discount Applied", message: "New total: $895.50 (saved $99.50)" });
    const intentId = intentIdOf(res.body.clientSecret);
    expect(intentIdOf(applied.body.clientSecret)).toBe(intentId);
    expect(t.fake.intents.get(intentId)!.amount).toBe(89550);
    t.fake.confirm(intentId, { number: "4242 4242 4242 4242" });
    expect((await v.post("/api/events/1/stripe-payment-success").send({ paymentIntentId: intentId, option: "team" })).body.status).toBe("paid");
    const s = await stored(res.body.registrationId);
    expect(s.registration).toMatchObject({ status: "paid", amount_paid_cents: 89550 });
    expect(s.emails[0].text_body).toContain("Discount code: TEAM10 ($99.50 off)");
    // The team code does not work for an individual, and the payload's own code is checked for the team's kind.
    const soloPayload = await apiTeam(await visitor(t.app), { eventId: 1, discountCode: "SOLO20" });
    expect(soloPayload.status).toBe(422);
    expect(soloPayload.body.error).toBe("This discount code is for individual registrations only.");
  });
});

describe("without JavaScript", () => {
  it("adds and removes rows on the server keeping every value, shows the messages, then holds the team and goes to the checkout", async () => {
    const v = await visitor(t.app);
    const page = await v.get("/team-register/2");
    const formSessionId = /name="formSessionId" value="([^"]+)"/.exec(page.text)![1]!;
    const fields: Record<string, string> = { formSessionId, "coachInfo[firstName]": "Dana", "coachInfo[lastName]": "Brooks", "coachInfo[email]": "nojs.coach@example.com", "coachInfo[phone]": "2055550142", "coachInfo[teamName]": "No Script WC" };
    const row = (i: number, a = athlete(i + 1)) => Object.fromEntries(Object.entries(a).map(([k, val]) => [`athletes[${i}][${k}]`, String(val)]));
    const added = await v.form("/team-register/2", { ...fields, ...row(0), ...row(1), intent: "add" });
    expect(added.status).toBe(200);
    expect(textOf(added.text)).toContain("Athlete 3");
    expect(added.text).toContain('value="Kid2"');
    expect(added.text).toContain('value="No Script WC"');
    expect(textOf(added.text)).toContain("Register Team - $398.00");
    expect(await count("registrations")).toBe(await count("registrations"));

    const removed = await v.form("/team-register/2", { ...fields, ...row(0), ...row(1), ...row(2, athlete(30)), remove: "0" });
    expect(textOf(removed.text)).not.toContain("Athlete 3");
    expect(removed.text).not.toContain('value="Kid1"');
    expect(removed.text).toContain('value="Kid30"');

    const before = await count("registrations");
    const short = await v.form("/team-register/2", { ...fields, ...row(0), ...row(1), ...row(2), ...row(3), intent: "register" });
    expect(short.status).toBe(400);
    expect(textOf(short.text)).toContain("You have 4 complete athletes. Need at least 5. Please add more athletes.");
    expect(short.text).toContain('value="Kid4"');
    expect(await count("registrations")).toBe(before);

    const rows = Object.assign({}, ...Array.from({ length: 25 }, (_, i) => row(i)));
    const held = await v.form("/team-register/2", { ...fields, ...rows, intent: "register" });
    expect(held.status).toBe(303);
    expect(held.headers.location).toBe("/stripe-checkout?eventId=2&eventName=National%20Champ%20Camp&option=team");
    const r = await t.db("registrations").where({ form_session_id: formSessionId }).first();
    expect(r).toMatchObject({ kind: "team", places: 25, amount_cents: 25 * 19900, team_name: "No Script WC" });
    const checkout = await v.get(held.headers.location!);
    expect(textOf(checkout.text)).toContain("Team Registration Ready!");
    expect(textOf(checkout.text)).toContain("Card payment needs JavaScript");
    // Back from the checkout: every row again, the same form.
    const back = await v.get("/team-register/2");
    expect(back.text).toContain(`value="${formSessionId}"`);
    expect(back.text).toContain('value="Kid25"');
  });
});

describe("expired team holds and late payments", () => {
  const expire = (reference: string) => t.db("registrations").where({ reference }).update({ reserved_until: new Date(Date.now() - 60_000) });

  it("a late payment takes all the team's places when they are free", async () => {
    t.fake.autoDeliver = false;
    const v = await visitor(t.app);
    const res = await apiTeam(v, { eventId: 4 });
    await expire(res.body.registrationId);
    const left = await placesLeft(t.db, 4, new Date());
    const intentId = intentIdOf(res.body.clientSecret);
    t.fake.confirm(intentId, { number: "4242 4242 4242 4242" });
    expect((await v.post("/api/events/4/stripe-payment-success").send({ paymentIntentId: intentId, option: "team" })).body.status).toBe("paid");
    expect(await placesLeft(t.db, 4, new Date())).toBe(left - 5);
  });

  it("refunds the whole team when fewer places are free than it has athletes, and e-mails the coach", async () => {
    t.fake.autoDeliver = false;
    const v = await visitor(t.app);
    const res = await apiTeam(v, { eventId: 4 });
    const reference = res.body.registrationId as string;
    await expire(reference);
    const taken = 200 - (await placesLeft(t.db, 4, new Date()));
    await setCapacity(4, taken + 4);
    try {
      const intentId = intentIdOf(res.body.clientSecret);
      t.fake.confirm(intentId, { number: "4242 4242 4242 4242" });
      const late = await v.post("/api/events/4/stripe-payment-success").send({ paymentIntentId: intentId, option: "team" });
      expect(late.status).toBe(409);
      // The coach's e-mail goes out once the refund job has sent the refund and Stripe said it succeeded.
      await (t.app.locals.refundJobs as JobQueue).drain();
      const s = await stored(reference);
      expect(s.registration.status).toBe("refunded");
      expect([...t.fake.refunds.values()].some((r) => r.payment_intent === intentId && r.amount === 99500)).toBe(true);
      expect(s.emails.map((e: { kind: string }) => e.kind)).toEqual(["registration_refund"]);
      expect(await placesLeft(t.db, 4, new Date())).toBe(4);
    } finally {
      await setCapacity(4, 200);
    }
  });

  it("the sweep expires a lapsed team hold and cancels its PaymentIntent", async () => {
    const v = await visitor(t.app);
    const res = await apiTeam(v, { eventId: 3 });
    await expire(res.body.registrationId);
    const sweep = t.app.locals.sweepExpiredHolds as () => Promise<number>;
    await Promise.all([sweep(), sweep()]);
    expect((await stored(res.body.registrationId)).registration.status).toBe("expired");
    expect(t.fake.intents.get(intentIdOf(res.body.clientSecret))!.status).toBe("canceled");
  });
});

describe("capacity under concurrency", () => {
  // On MySQL requests really run in parallel: 10 teams of 25 for 200 free places.
  it.runIf(backend === "mysql")("holds 8 of 10 simultaneous teams of 25 at 200 free places, never more than 200 places", { timeout: 120_000 }, async () => {
    const taken = 200 - (await placesLeft(t.db, 1, new Date()));
    await setCapacity(1, taken + 200);
    try {
      const coaches = await Promise.all(Array.from({ length: 10 }, () => visitor(t.app)));
      const answers = await Promise.all(
        coaches.map((v, i) =>
          apiTeam(v, { eventId: 1, coachInfo: { ...COACH, email: `squad${i}@example.com` }, athletes: team(25) }).set("x-forwarded-for", `203.0.113.${i + 1}`),
        ),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(8);
      expect(answers.filter((a) => a.status === 409)).toHaveLength(2);
      expect(await placesLeft(t.db, 1, new Date())).toBe(0);
      const held = await t.db("registrations").where("contact_email", "like", "squad%").andWhere({ status: "pending_payment" }).sum({ places: "places" }).first();
      expect(Number(held!.places)).toBe(200);
    } finally {
      await setCapacity(1, 200);
    }
  });

  it("gives the last 5 places to exactly one of 6 simultaneous teams", async () => {
    const taken = 200 - (await placesLeft(t.db, 2, new Date()));
    await setCapacity(2, taken + 5);
    try {
      const coaches = await Promise.all(Array.from({ length: 6 }, () => visitor(t.app)));
      const answers = await Promise.all(coaches.map((v, i) => apiTeam(v, { coachInfo: { ...COACH, email: `race${i}@example.com` } }).set("x-forwarded-for", `198.51.100.${i + 50}`)));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(await placesLeft(t.db, 2, new Date())).toBe(0);
    } finally {
      await setCapacity(2, 200);
    }
  });
});
