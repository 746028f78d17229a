import { Writable } from "node:stream";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../../../src/logger.ts";
import { moveClock, resetClock } from "../../../../src/clock.ts";
import { secretTokenHash } from "../../../../src/http/secretLinks.ts";
import { SENT_LINK_PLACEHOLDER } from "../../../../src/email/outbox.ts";
import { RETURNING_LINK, RETURNING_TEXT } from "../../../../src/shared/registrations/returning.ts";
import { prefillOf, returningAthletesOf } from "../../../../src/registrations/booking/returning.ts";
import { findEvent } from "../../../../src/events/repository.ts";
import { csrfFrom, textOf, visitor } from "../../../support/http.ts";
import { sentText } from "../../../support/mail.ts";
import { bookingApp } from "./helpers.ts";
import { until } from "../../../support/until.ts";

/**
 * "Registered before?" (issue 43): a link e-mailed to an address that registered last season fills in this season's
 * form, once, for 30 minutes, in the browser that opened it. Last season is event 1 moved to 2026 once its
 * registrations are paid; this season's forms are event 2's (June 2027).
 */
const logLines: string[] = [];
const t = bookingApp({
  logger: createLogger("info", new Writable({ write: (chunk: Buffer, _e, done) => { logLines.push(...chunk.toString().split("\n").filter(Boolean)); done(); } })),
  async setup(t) {
    await paidIndividual(t, { ...ATHLETE });
    await paidIndividual(t, { ...ATHLETE, firstName: "Leo", grade: "8th", tShirtSize: "Small" });
    await paidIndividual(t, { ...ATHLETE, firstName: "Ivy", email: "ivy.ortiz@example.com", guardianEmail: "cap.parent@example.com" });
    await paidTeam(t);
    // A family of two on one registration, and one of five: four together and the fifth a moment earlier.
    await paidIndividual(t, { ...ATHLETE, ...DIAZ, ...siblingOf(2, "Lia", "7th", "Small") });
    await paidIndividual(t, { ...ATHLETE, ...BIG, firstName: "Eve", grade: "6th" });
    await paidIndividual(t, { ...ATHLETE, ...BIG, siblings: "3", ...siblingOf(2, "Ben", "9th", "Large", "Hill"), ...siblingOf(3, "Cal", "8th", "Medium", "Hill"), ...siblingOf(4, "Dot", "7th", "Small", "Hill") });
    await t.db("events").where({ id: 1 }).update({ start_date: new Date("2026-06-19T00:00:00Z"), end_date: new Date("2026-06-21T00:00:00Z") });
  },
});

const PARENT = "ana.ortiz@example.com";
const COACH = "dana.coach@example.com";
const ATHLETE = {
  firstName: "Maya", lastName: "Ortiz", email: "maya.ortiz@example.com", phone: "(702) 555-0100", grade: "10th", gender: "Female", schoolName: "Desert High",
  clubName: "Vegas WC", tShirtSize: "Medium", emergencyContactName: "Ana Ortiz", emergencyContactPhone: "702-555-0199", specialRequirements: "Peanut allergy",
  guardianName: "Ana Ortiz", guardianEmail: PARENT, guardianPhone: "702-555-0199", agrees: "on",
};

const DIAZ = { firstName: "Sam", lastName: "Diaz", email: "sam.diaz@example.com", grade: "9th", tShirtSize: "Large", guardianName: "Rosa Diaz", guardianEmail: "rosa.diaz@example.com", emergencyContactName: "Rosa Diaz", siblings: "1" };
const BIG = { firstName: "Amy", lastName: "Hill", email: "amy.hill@example.com", grade: "10th", guardianName: "Kim Hill", guardianEmail: "kim.hill@example.com" };
/** Athlete N of a family, on the full package. */
const siblingOf = (n: number, firstName: string, grade: string, tShirtSize: string, lastName = "Diaz") => ({
  [`sibling${n}_registrationType`]: "full", [`sibling${n}_firstName`]: firstName, [`sibling${n}_lastName`]: lastName, [`sibling${n}_grade`]: grade, [`sibling${n}_gender`]: "Female",
  [`sibling${n}_schoolName`]: "Desert Middle", [`sibling${n}_clubName`]: "Vegas WC", [`sibling${n}_tShirtSize`]: tShirtSize, [`sibling${n}_specialRequirements`]: "",
});

let ip = 10;
const nextIp = () => `198.18.${Math.floor(++ip / 250)}.${ip % 250}`;

async function paidIndividual(app: typeof t, athlete: Record<string, string>) {
  const v = await visitor(app.app);
  const res = await v.post("/api/events/1/create-payment-intent").set("x-forwarded-for", nextIp()).send({ option: "full", formSessionId: `returning-${++ip}-${Date.now()}`, registrationData: { ...athlete, registrationType: "full" } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
  app.fake.confirm(intentId, { number: "4242 4242 4242 4242" });
  expect((await v.post("/api/events/1/stripe-payment-success").send({ paymentIntentId: intentId })).body.status).toBe("paid");
}

async function paidTeam(app: typeof t) {
  const v = await visitor(app.app);
  const athletes = Array.from({ length: 5 }, (_, i) => ({ firstName: `Kid${i + 1}`, lastName: "Brooks", age: 12 + (i % 3), email: `kid${i + 1}@example.com`, shirtSize: "Large", parentName: `Parent ${i + 1}`, parentPhoneNumber: "205-555-0100" }));
  const res = await v.post("/api/team-registration").set("x-forwarded-for", nextIp())
    .send({ eventId: 1, coachInfo: { firstName: "Dana", lastName: "Brooks", email: COACH, phone: "(205) 555-0142", teamName: "Steel City WC" }, athletes, formSessionId: `returning-team-${Date.now()}` });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
  app.fake.confirm(intentId, { number: "4242 4242 4242 4242" });
  expect((await v.post("/api/events/1/stripe-payment-success").send({ paymentIntentId: intentId, option: "team" })).body.status).toBe("paid");
}

/** A browser of its own: cookies, address and the CSRF token of the page it opened first. */
async function browser(first = "/register/2") {
  const agent = request.agent(t.app);
  const from = nextIp();
  const page = await agent.get(first).set("x-forwarded-for", from);
  const token = csrfFrom(page.text);
  return {
    get: (url: string) => agent.get(url).set("x-forwarded-for", from),
    form: (url: string, fields: Record<string, string>) => agent.post(url).set("x-forwarded-for", from).type("form").send({ ...fields, _csrf: token }),
  };
}

const asked = () => logLines.filter((l) => l.includes('"returning link asked"')).length;
const linkMails = (to: string) => t.db("email_outbox").where({ kind: "returning_link", to_address: to }).orderBy("id");
const tokenIn = (text: string) => /\/returning\/([A-Za-z0-9_-]{43})/.exec(text)![1]!;

/** Asks for a link on event 2's step 1 and waits until the ask was decided (after the answer); `decided`: how many asks to wait for. */
async function ask(email: string, from = "register", decided = 1) {
  const before = asked();
  const b = await browser(from === "team" ? "/team-register/2" : "/register/2");
  const posted = await b.form("/events/2/returning", { email, from });
  expect(posted.status).toBe(303);
  const next = await b.get(posted.headers.location!);
  await until(() => asked() >= before + decided);
  return { location: posted.headers.location as string, answer: /Check your inbox[^<]*/.exec(next.text)?.[0] ?? "", page: textOf(next.text) };
}

/** The widget's props on a page, by its name. */
function propsOf(html: string, widget: string): Record<string, any> {
  const id = new RegExp(`data-widget="${widget}"[^>]*? id="([^"]+)"`).exec(html)![1]!;
  const json = new RegExp(`<script type="application/json" id="${id}-props">([\\s\\S]*?)</script>`).exec(html)![1]!;
  return JSON.parse(json.replace(/\\u003c/g, "<"));
}

afterEach(() => resetClock());

describe("Registered before?", () => {
  it("answers known and unknown addresses alike; the known one gets one e-mail whose link is stored hashed, logged nowhere, and redacted once sent", async () => {
    const known = await ask(PARENT.toUpperCase());
    const unknown = await ask("never.registered@example.com");
    expect(known.location).toBe("/register/2#returning");
    expect(unknown.location).toBe(known.location);
    expect(known.answer).toContain(RETURNING_TEXT.sentTitle);
    expect(unknown.answer).toBe(known.answer);
    expect(await linkMails("never.registered@example.com")).toHaveLength(0);
    const [mail] = await linkMails(PARENT);
    expect(mail).toBeDefined();
    const token = tokenIn(sentText(t.mailDir, mail));

    const [link] = await t.db("returning_links").where({ token_hash: secretTokenHash(token) });
    expect(link).toMatchObject({ email: PARENT, event_id: 2, form: "individual", used_at: null });
    expect(new Date(link.expires_at).getTime() - new Date(link.created_at).getTime()).toBe(RETURNING_LINK.validMs);
    expect(JSON.stringify(await t.db("returning_links"))).not.toContain(token);

    await t.outbox.drain();
    const sent = await t.db("email_outbox").where({ id: mail.id }).first();
    expect(sent.status).toBe("sent");
    expect(sent.text_body).not.toContain(token);
    expect(sent.text_body).toContain(`/returning/${SENT_LINK_PLACEHOLDER}`);
    expect(tokenIn(sentText(t.mailDir, sent))).toBe(token);

    const b = await browser("/about");
    expect((await b.get(`/returning/${token}`)).status).toBe(303);
    const logs = logLines.join("\n");
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(PARENT);
    expect(logs.toLowerCase()).not.toContain(PARENT.toLowerCase());
    expect(logs).toContain("/returning/[redacted]");
  });

  it("opens once, in the browser that opened it: step 1 filled in with the grade moved up and the agreements unticked", async () => {
    await ask(PARENT);
    const token = tokenIn(sentText(t.mailDir, (await linkMails(PARENT)).at(-1)));
    const phone = await browser("/events/2");
    const opened = await phone.get(`/returning/${token}`);
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe("/register/2");
    const page = await phone.get("/register/2");
    const values = propsOf(page.text, "RegistrationSteps").values as Record<string, string>;
    // The address registered two siblings last season, one after the other: Leo (registered last) first, Maya as athlete 2.
    expect(values).toMatchObject({ firstName: "Leo", lastName: "Ortiz", grade: "9th", tShirtSize: "Small", schoolName: "Desert High", clubName: "Vegas WC", gender: "Female",
      emergencyContactName: "Ana Ortiz", specialRequirements: "Peanut allergy", guardianName: "Ana Ortiz", guardianEmail: PARENT,
      siblings: "1", sibling2_firstName: "Maya", sibling2_grade: "11th", sibling2_tShirtSize: "Medium" });
    expect(values.agrees).toBeUndefined();
    expect(values.discountCode).toBeUndefined();
    expect(values.paymentPlan).toBeUndefined();
    const text = textOf(page.text);
    expect(text).toContain(RETURNING_TEXT.prefilledTitle);
    expect(text).not.toContain("Also registered last time");
    // The no-JavaScript form carries the same values, the agreement box unticked.
    expect(page.text).toMatch(/name="firstName"[^>]*value="Leo"|value="Leo"[^>]*name="firstName"/);
    expect(page.text).not.toMatch(/name="agrees"[^>]*checked/);

    // A second open, in this browser or another: used.
    expect((await phone.get(`/returning/${token}`)).status).toBe(410);
    const other = await browser("/events/2");
    const again = await other.get(`/returning/${token}`);
    expect(again.status).toBe(410);
    expect(textOf(again.text)).toContain(RETURNING_TEXT.usedTitle);
    expect(again.text).toContain('action="/events/2/returning"');
    // Nobody else's form is filled in.
    expect(propsOf((await other.get("/register/2")).text, "RegistrationSteps").values.firstName).toBeUndefined();
  });

  it("fills in a family registered together as siblings, grades moved up, agreements unticked; posted as it is with a grade and a size changed, it holds both", async () => {
    await ask(DIAZ.guardianEmail);
    const token = tokenIn(sentText(t.mailDir, (await linkMails(DIAZ.guardianEmail)).at(-1)));
    const phone = await browser("/events/2");
    expect((await phone.get(`/returning/${token}`)).headers.location).toBe("/register/2");
    const page = await phone.get("/register/2");
    const values = propsOf(page.text, "RegistrationSteps").values as Record<string, string>;
    expect(values).toMatchObject({
      firstName: "Sam", lastName: "Diaz", grade: "10th", tShirtSize: "Large", guardianName: "Rosa Diaz", guardianEmail: DIAZ.guardianEmail, emergencyContactName: "Rosa Diaz",
      siblings: "1", sibling2_firstName: "Lia", sibling2_lastName: "Diaz", sibling2_grade: "8th", sibling2_gender: "Female", sibling2_schoolName: "Desert Middle",
      sibling2_clubName: "Vegas WC", sibling2_tShirtSize: "Small",
    });
    expect(values.agrees).toBeUndefined();
    expect(Object.keys(values).filter((k) => k.startsWith("sibling3_"))).toEqual([]);
    expect(textOf(page.text)).not.toContain("Also registered last time");
    // The no-JavaScript form: athlete 2 rendered with its values, the agreement unticked.
    expect(textOf(page.text)).toContain("Athlete 2");
    expect(page.text).toMatch(/name="sibling2_firstName"[^>]*value="Lia"|value="Lia"[^>]*name="sibling2_firstName"/);
    expect(page.text).toMatch(/name="sibling2_grade"[^>]*value="8th"|value="8th"[^>]*name="sibling2_grade"/);
    expect(page.text).not.toMatch(/name="agrees"[^>]*checked/);

    // Posted as filled in, with only a grade and a shirt size changed and the agreement ticked: one registration, both athletes.
    const held = await phone.form("/register/2", { ...values, sibling2_grade: "9th", sibling2_tShirtSize: "Medium", agrees: "on" });
    expect(held.status, textOf(held.text)).toBe(303);
    const row = await t.db("registrations").where({ form_session_id: values.formSessionId }).first();
    expect(row).toMatchObject({ kind: "individual", places: 2, status: "pending_payment" });
    const athletes = await t.db("registration_athletes").where({ registration_id: row.id }).orderBy("position");
    expect(athletes.map((a) => [a.first_name, a.grade, a.shirt_size])).toEqual([["Sam", "10th", "Large"], ["Lia", "9th", "Medium"]]);
  });

  it("fills in at most four athletes of a family and names the others", async () => {
    await ask(BIG.guardianEmail);
    const token = tokenIn(sentText(t.mailDir, (await linkMails(BIG.guardianEmail)).at(-1)));
    const phone = await browser("/events/2");
    await phone.get(`/returning/${token}`);
    const page = await phone.get("/register/2");
    const values = propsOf(page.text, "RegistrationSteps").values as Record<string, string>;
    expect([values.firstName, values.sibling2_firstName, values.sibling3_firstName, values.sibling4_firstName, values.siblings]).toEqual(["Amy", "Ben", "Cal", "Dot", "3"]);
    expect([values.grade, values.sibling2_grade, values.sibling3_grade, values.sibling4_grade]).toEqual(["11th", "10th", "9th", "8th"]);
    expect(textOf(page.text)).toContain("Also registered last time: Eve Hill.");
  });

  it("opened in two tabs at once, fills in one of them", async () => {
    await ask(ATHLETE.email);
    const token = tokenIn(sentText(t.mailDir, (await linkMails(ATHLETE.email)).at(-1)));
    const tabs = await Promise.all([browser("/events/2"), browser("/events/2")]);
    const opened = await Promise.all(tabs.map((b) => b.get(`/returning/${token}`)));
    expect(opened.map((r) => r.status).sort()).toEqual([303, 410]);
    const filled = await Promise.all(tabs.map(async (b) => propsOf((await b.get("/register/2")).text, "RegistrationSteps").values.firstName as string | undefined));
    expect(filled.filter(Boolean)).toHaveLength(1);
  });

  it("is refused after 30 minutes, and a made-up token answers the same", async () => {
    await ask(COACH);
    const token = tokenIn(sentText(t.mailDir, (await linkMails(COACH)).at(-1)));
    moveClock(RETURNING_LINK.validMs + 1000);
    const b = await browser("/events/2");
    const late = await b.get(`/returning/${token}`);
    expect(late.status).toBe(410);
    expect(textOf(late.text)).toContain(RETURNING_TEXT.usedTitle);
    expect((await t.db("returning_links").where({ token_hash: secretTokenHash(token) }).first()).used_at).toBeNull();
    expect((await b.get(`/returning/${"A".repeat(43)}`)).status).toBe(410);
    expect(propsOf((await b.get("/register/2")).text, "RegistrationSteps").values.firstName).toBeUndefined();
  });

  it("sends at most 3 a day to an address, however many asks arrive at once; the 4th is answered the same and sends nothing", async () => {
    const address = "cap.parent@example.com";
    const answers = await Promise.all(Array.from({ length: 6 }, () => ask(address, "register", 6)));
    expect(new Set(answers.map((a) => a.answer)).size).toBe(1);
    expect(await linkMails(address)).toHaveLength(RETURNING_LINK.perAddressPerDay);
    const fourth = await ask(address);
    expect(fourth.answer).toBe(answers[0]!.answer);
    expect(await linkMails(address)).toHaveLength(RETURNING_LINK.perAddressPerDay);
    // A day later the address may ask again.
    moveClock(86_400_000 + 1000);
    await ask(address);
    expect(await linkMails(address)).toHaveLength(RETURNING_LINK.perAddressPerDay + 1);
  });

  it("is offered on the event's page, step 1 and the team form; asked on the event's page, a coach's link opens the team form", async () => {
    const b = await browser("/events/2");
    for (const [path, from] of [["/events/2", "event"], ["/register/2", "register"], ["/team-register/2", "team"]] as const) {
      const html = (await b.get(path)).text;
      expect(textOf(html), path).toContain(RETURNING_TEXT.title);
      expect(html, path).toContain('action="/events/2/returning"');
      expect(html, path).toContain(`name="from" value="${from}"`);
    }
    const before = asked();
    expect((await b.form("/events/2/returning", { email: "kid4@example.com", from: "event" })).headers.location).toBe("/events/2#returning");
    await until(() => asked() > before);
    expect((await t.db("returning_links").where({ email: "kid4@example.com" }).first()).form).toBe("individual");
    expect((await b.form("/events/2/returning", { email: COACH, from: "event" })).status).toBe(303);
    await until(() => asked() > before + 1);
    expect((await t.db("returning_links").where({ email: COACH }).orderBy("id", "desc").first()).form).toBe("team");
  });

  it("takes 5 asks an hour from one connection: the 6th is refused with a message", async () => {
    const b = await browser();
    for (let i = 0; i < 5; i++) expect((await b.form("/events/2/returning", { email: `nobody${i}@example.com`, from: "register" })).status).toBe(303);
    const refused = await b.form("/events/2/returning", { email: "nobody5@example.com", from: "register" });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain(RETURNING_TEXT.rateLimited);
  });

  it("refuses a malformed ask with a clear message and changes nothing", async () => {
    const before = await t.db("returning_links").count({ n: "*" }).first();
    const b = await browser();
    const posted = await b.form("/events/2/returning", { email: "not-an-address", from: "register" });
    expect(posted.status).toBe(303);
    expect(posted.headers.location).toBe("/register/2#returning");
    expect(textOf((await b.get(posted.headers.location!)).text)).toContain("Please enter a valid email address");
    expect((await b.form("/events/99/returning", { email: PARENT })).status).toBe(404);
    expect(await t.db("returning_links").count({ n: "*" }).first()).toEqual(before);
  });

  it("opens the team form for a coach: contact and team name filled in, last season's athletes to tick, ticked ones rows with their ages moved up", async () => {
    await ask(COACH, "team");
    const token = tokenIn(sentText(t.mailDir, (await linkMails(COACH)).at(-1)));
    const b = await browser("/events/2");
    const opened = await b.get(`/returning/${token}`);
    expect(opened.headers.location).toBe("/team-register/2");
    const page = await b.get("/team-register/2");
    const props = propsOf(page.text, "TeamForm");
    expect(props.values.coachInfo).toEqual({ firstName: "Dana", lastName: "Brooks", email: COACH, phone: "(205) 555-0142", teamName: "Steel City WC" });
    expect(props.values.athletes).toHaveLength(2);
    expect(props.values.athletes[0].firstName).toBe("");
    const text = textOf(page.text);
    expect(text).toContain(RETURNING_TEXT.teamListLegend);
    for (let i = 1; i <= 5; i++) expect(text).toContain(`Kid${i} Brooks`);

    const ticked = propsOf((await b.get("/team-register/2?athlete=0&athlete=2&athlete=99")).text, "TeamForm");
    expect(ticked.values.coachInfo.teamName).toBe("Steel City WC");
    expect(ticked.values.athletes).toEqual([
      { firstName: "Kid1", lastName: "Brooks", age: "13", email: "kid1@example.com", shirtSize: "Large", parentName: "Parent 1", parentPhoneNumber: "205-555-0100" },
      { firstName: "Kid3", lastName: "Brooks", age: "15", email: "kid3@example.com", shirtSize: "Large", parentName: "Parent 3", parentPhoneNumber: "205-555-0100" },
    ]);
    // Another browser's team form stays blank.
    const other = await browser("/team-register/2");
    expect(propsOf((await other.get("/team-register/2?athlete=0")).text, "TeamForm").values.coachInfo.email).toBe("");
  });

  it("finds every athlete of the address's latest registrations: siblings on separate registrations, a team's athletes, an athlete's own", async () => {
    const parent = await returningAthletesOf(t, PARENT);
    expect(parent!.athletes.map((a) => a.firstName)).toEqual(["Leo", "Maya"]);
    const coach = await returningAthletesOf(t, COACH);
    expect(coach!.athletes.map((a) => a.firstName)).toEqual(["Kid1", "Kid2", "Kid3", "Kid4", "Kid5"]);
    const kid = await returningAthletesOf(t, "KID2@example.com");
    expect(kid!.athletes.map((a) => a.firstName)).toEqual(["Kid2"]);
    expect(await returningAthletesOf(t, "never.registered@example.com")).toBeUndefined();
  });

  it("fills in a team's athletes as no family: a coach's individual form gets the first athlete and names the others", async () => {
    const prefill = prefillOf((await findEvent(t.db, 2))!, (await returningAthletesOf(t, COACH))!, "individual");
    expect(prefill.values.firstName).toBe("Kid1");
    expect(Object.keys(prefill.values).filter((k) => k.startsWith("sibling"))).toEqual([]);
    expect(prefill.others).toEqual(["Kid2 Brooks", "Kid3 Brooks", "Kid4 Brooks", "Kid5 Brooks"]);
  });
});
