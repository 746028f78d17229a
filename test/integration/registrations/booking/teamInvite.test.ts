import { describe, expect, it } from "vitest";
import { bookingApp } from "./helpers.ts";
import { textOf, visitor } from "../../../support/http.ts";
import { sentText } from "../../../support/mail.ts";
import { secretTokenHash } from "../../../../src/http/secretLinks.ts";
import { INVITE_TEXT } from "../../../../src/shared/registrations/invites.ts";
import { TEAM_MAXIMUM } from "../../../../src/shared/registrations/teamRules.ts";
import { INVITE_SUBMIT_LIMIT } from "../../../../src/registrations/booking/routes/teamInvite.routes.tsx";

// A team's invite link: the coach shares one link, families fill in their own rows, the coach pays for all of them.

const t = bookingApp();

let address = 20;
let seq = 0;
const COACH = { firstName: "Dana", lastName: "Reyes", email: "coach.reyes@example.com", phone: "2055550142", teamName: "Iron Valley WC" };
const own = (i: number, tag: string) => ({ firstName: `Own${i}`, lastName: "Ownlast", age: "14", email: `own${i}.${tag}@example.com`, shirtSize: "Medium", parentName: `Own Parent ${i}`, parentPhoneNumber: "2055550100" });
const family = (i: number, tag: string, over: Record<string, string> = {}) => ({
  firstName: `Fam${i}`,
  lastName: `Lastname${i}`,
  age: "13",
  email: `fam${i}.${tag}@example.com`,
  shirtSize: "Large",
  parentName: `Guardian${i} ${tag}`,
  parentPhoneNumber: `205555${String(1000 + i)}`,
  ...over,
});
const asFields = (prefix: string, o: Record<string, string>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [`${prefix}[${k}]`, v]));
const rowsAsFields = (rows: Record<string, string>[]) => Object.assign({}, ...rows.map((r, i) => Object.fromEntries(Object.entries(r).map(([k, v]) => [`athletes[${i}][${k}]`, v]))));
const fresh = async () => {
  const v = await visitor(t.app);
  const ip = `203.0.115.${address++ % 250}`;
  return { ...v, ip, form: (url: string, fields: Record<string, string>) => v.agent.post(url).set("x-forwarded-for", ip).type("form").send({ ...fields, _csrf: v.token }) };
};
const tokenIn = (html: string) => /\/team-invite\/([A-Za-z0-9_-]{43})/.exec(html)![1]!;

/** A coach (no JavaScript) with two own rows asks for the link; returns the coach, the link's path and the form id. */
async function coachWithLink(tag: string) {
  const coach = await fresh();
  const page = await coach.get("/team-register/2");
  const formSessionId = /name="formSessionId" value="([^"]+)"/.exec(page.text)![1]!;
  const fields = { formSessionId, ...asFields("coachInfo", { ...COACH, email: `coach.${tag}@example.com` }), ...rowsAsFields([own(1, tag), own(2, tag)]) };
  const made = await coach.form("/team-register/2", { ...fields, intent: "invite" });
  expect(made.status).toBe(303);
  expect(made.headers.location).toBe("/team-register/2");
  const back = await coach.get("/team-register/2");
  expect(back.text).toContain('value="Own2"');
  const token = tokenIn(back.text);
  return { coach, path: `/team-invite/${token}`, token, formSessionId, fields };
}

type Fresh = Awaited<ReturnType<typeof fresh>>;
async function familySubmits(path: string, row: Record<string, string>, waiver: Record<string, string> = {}, v?: Fresh) {
  const f = v ?? (await fresh());
  await f.get(path);
  const res = await f.form(path, { ...asFields("athlete", row), ...waiver });
  return { f, res };
}

const SIGN = (name: string) => ({ signedName: name, relationship: "Parent", agrees: "on" });

describe("a team's invite link", () => {
  it("families fill in their rows, the coach sees them and pays once: the waivers are recorded and each family gets its link", async () => {
    const tag = `a${++seq}`;
    const { coach, path, token } = await coachWithLink(tag);
    // Only the hash is stored.
    const invite = await t.db("team_invites").where({ token_hash: secretTokenHash(token) }).first();
    expect(invite).toBeTruthy();
    expect(JSON.stringify(await t.db("team_invites").select())).not.toContain(token);

    const opened = await (await fresh()).get(path);
    expect(opened.status).toBe(200);
    expect(opened.headers["cache-control"]).toContain("no-store");
    expect(textOf(opened.text)).toContain("Join Iron Valley WC");
    expect(textOf(opened.text)).toContain("National Champ Camp");
    expect(textOf(opened.text)).toMatch(/Already on the team Own1 Own2/);

    const one = await familySubmits(path, family(1, tag), SIGN("Guardian1 Parent"));
    expect(one.res.status).toBe(303);
    const two = await familySubmits(path, family(2, tag));
    expect(two.res.status).toBe(303);
    const three = await familySubmits(path, family(3, tag, { age: "18" }), { signedName: "Fam3 Lastname3", relationship: "Athlete (18 or older)", agrees: "on" });
    expect(three.res.status).toBe(303);
    expect(await t.db("team_invite_rows").where({ invite_id: invite.id }).count({ n: "*" }).first()).toMatchObject({ n: 3 });

    // Another family's page: first names only, never another row's last name, e-mail or parent.
    const page = await three.f.get(path);
    const text = textOf(page.text);
    expect(text).toContain("Fam1");
    for (const secret of ["Lastname1", "Lastname2", `fam1.${tag}@example.com`, `fam2.${tag}@example.com`, `Guardian1 ${tag}`, "2055551001", "Ownlast", `own1.${tag}`, "Own Parent"]) expect(page.text, secret).not.toContain(secret);
    // The family's own row is in its form, and corrects from the same browser.
    expect(page.text).toContain('value="Lastname3"');
    const corrected = await familySubmits(path, family(2, tag, { shirtSize: "XL" }), {}, two.f);
    expect(corrected.res.status).toBe(303);
    expect(await t.db("team_invite_rows").where({ invite_id: invite.id }).count({ n: "*" }).first()).toMatchObject({ n: 3 });
    expect((await t.db("team_invite_rows").where({ invite_id: invite.id, first_name: "Fam2" }).first()).shirt_size).toBe("XL");

    // The coach sees the rows and the total for five.
    const form = await coach.get("/team-register/2");
    const coachText = textOf(form.text);
    expect(coachText).toContain("Fam1 Lastname1");
    expect(coachText).toMatch(/Fam2 Lastname2 ?, 13, XL: complete ?; waiver and medical release not signed yet/);
    expect(coachText).toMatch(/Fam1 Lastname1 ?, 13, Large: complete ?; waiver signed/);
    expect(coachText).toContain("Register Team - $995.00");

    // With JavaScript the coach's form asks for the rows; no other browser gets them.
    const polled = await coach.get("/api/team-invite-rows/2").expect(200);
    expect(polled.body.rows.map((r: { row: { firstName: string } }) => r.row.firstName)).toEqual(["Fam1", "Fam2", "Fam3"]);
    expect((await three.f.get("/api/team-invite-rows/2")).status).toBe(404);

    // The coach pays: the JSON call with the own rows; the server adds the families' rows as stored.
    const held = await coach.agent.post("/api/team-registration").set("x-csrf-token", coach.token).set("x-forwarded-for", coach.ip).send({
      eventId: 2, coachInfo: { ...COACH, email: `coach.${tag}@example.com` }, athletes: [own(1, tag), own(2, tag)], formSessionId: invite.form_session_id, invite: true,
      // Ignored: the server prices the team.
      totalAmount: 1, discountedAmount: 1,
    });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    expect(held.body.amount).toBe(995);
    const r = await t.db("registrations").where({ reference: held.body.registrationId }).first();
    expect(r).toMatchObject({ kind: "team", places: 5, amount_cents: 5 * 19900 });
    const athletes = await t.db("registration_athletes").where({ registration_id: r.id }).orderBy("position");
    expect(athletes.map((a: { first_name: string }) => a.first_name)).toEqual(["Own1", "Own2", "Fam1", "Fam2", "Fam3"]);
    expect(athletes[3].shirt_size).toBe("XL");
    expect(athletes[2].emergency_contact_name).toBe(`Guardian1 ${tag}`);

    const intentId = (held.body.clientSecret as string).split("_secret_")[0]!;
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await coach.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId, option: "team" })).body.status).toBe("paid");

    const paidAthletes = await t.db("registration_athletes").where({ registration_id: r.id }).orderBy("position");
    expect(paidAthletes[2]).toMatchObject({ waiver_signed_name: "Guardian1 Parent", waiver_signer_relationship: "Parent" });
    expect(paidAthletes[3].waiver_signed_name).toBeNull();
    expect(paidAthletes[4]).toMatchObject({ waiver_signed_name: "Fam3 Lastname3", waiver_signer_relationship: "Athlete (18 or older)" });

    // Each family's manage link, to the athlete's address; the signed minor is not asked to sign again.
    const mails = await t.db("email_outbox").where({ reference: `registration:${r.reference}`, kind: "registration_family_link" });
    expect(mails.map((m: { to_address: string }) => m.to_address).sort()).toEqual([...[1, 2, 3].map((i) => `fam${i}.${tag}@example.com`), `own1.${tag}@example.com`, `own2.${tag}@example.com`].sort());
    const toFam1 = mails.find((m: { to_address: string }) => m.to_address === `fam1.${tag}@example.com`);
    expect(toFam1.text_body).not.toContain("- sign the waiver");
    const toFam2 = mails.find((m: { to_address: string }) => m.to_address === `fam2.${tag}@example.com`);
    expect(toFam2.text_body).toContain("- sign the waiver");
    const manage = /\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, toFam1))![1]!;
    expect(textOf((await (await fresh()).get(`/my-registration/${manage}`)).text)).toContain("Signed by Guardian1 Parent (Parent)");

    // The invite is closed: a family's correction is refused, nothing changes.
    const late = await familySubmits(path, family(1, tag, { shirtSize: "Small" }), {}, one.f);
    expect(late.res.status).toBe(409);
    expect(textOf(late.res.text)).toContain(INVITE_TEXT.closed);
    expect((await t.db("team_invite_rows").where({ invite_id: invite.id, first_name: "Fam1" }).first()).shirt_size).toBe("Large");
    // The coach's form starts anew (the paid team's invite is not the draft any more).
    expect(textOf((await coach.get("/team-register/2")).text)).not.toContain("Fam1 Lastname1");
  });

  it("a family's bad input: the row's messages, nothing saved; a minor cannot sign for themself; an unknown link is 404", async () => {
    const tag = `b${++seq}`;
    const { path } = await coachWithLink(tag);
    const bad = await familySubmits(path, family(1, tag, { email: "not-an-address", age: "7", lastName: "" }));
    expect(bad.res.status).toBe(400);
    const text = textOf(bad.res.text);
    expect(text).toContain("This field is required");
    expect(text).toContain("Athletes must be 10 to 19 years old");
    const partial = await familySubmits(path, family(2, tag), { signedName: "Someone" });
    expect(partial.res.status).toBe(400);
    const minor = await familySubmits(path, family(3, tag), { signedName: "Fam3 Lastname3", relationship: "Athlete (18 or older)", agrees: "on" });
    expect(minor.res.status).toBe(400);
    expect(textOf(minor.res.text)).toContain("An athlete under 18 needs a parent or legal guardian to sign.");
    expect(Number((await t.db("team_invite_rows").count({ n: "*" }).first())!.n)).toBeGreaterThanOrEqual(0);
    const invite = await t.db("team_invites").orderBy("id", "desc").first();
    expect(await t.db("team_invite_rows").where({ invite_id: invite.id })).toEqual([]);
    for (const p of ["/team-invite/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "/team-invite/short"]) expect((await (await fresh()).get(p)).status).toBe(404);
  });

  it("a spec-shaped team call from a coach with a link is unchanged (the families' rows join only when the form says invite)", async () => {
    const tag = `c${++seq}`;
    const { coach, path } = await coachWithLink(tag);
    await familySubmits(path, family(1, tag));
    const res = await coach.agent.post("/api/team-registration").set("x-csrf-token", coach.token).set("x-forwarded-for", coach.ip).send({
      eventId: 2, coachInfo: COACH, athletes: [1, 2, 3, 4, 5].map((i) => own(i, tag)), pricePerAthlete: 199, totalAmount: 995, discountedAmount: 995, discountCode: null,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.athletes).toBe(5);
  });

  it("a refused Register with the invite changes nothing: no team, the draft as it was", async () => {
    const tag = `k${++seq}`;
    const { coach, path, token, formSessionId } = await coachWithLink(tag);
    for (const i of [1, 2, 3]) await familySubmits(path, family(i, tag));
    const draft = await t.db("team_invites").where({ token_hash: secretTokenHash(token) }).first();
    const refused = await coach.agent.post("/api/team-registration").set("x-csrf-token", coach.token).set("x-forwarded-for", coach.ip)
      .send({ eventId: 2, coachInfo: { ...COACH, email: "" }, athletes: [own(7, tag)], formSessionId, invite: true });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("Please fill in: Email");
    expect(await t.db("registrations").where({ form_session_id: formSessionId })).toEqual([]);
    expect(await t.db("team_invites").where({ id: draft.id }).first()).toEqual(draft);
  });

  it("without JavaScript the coach registers with the families' rows; a row filled in since the page was shown changes the total first", async () => {
    const tag = `d${++seq}`;
    const { coach, path, fields } = await coachWithLink(tag);
    for (const i of [1, 2]) await familySubmits(path, family(i, tag));
    const page = await coach.get("/team-register/2");
    expect(textOf(page.text)).toContain("Register Team - $796.00");
    await familySubmits(path, family(3, tag));
    const changed = await coach.form("/team-register/2", { ...fields, invite: "1", shownTotalCents: "79600", intent: "register" });
    expect(changed.status).toBe(409);
    expect(textOf(changed.text)).toContain("Your team now has 5 complete athletes, so the total is $995.00.");
    const held = await coach.form("/team-register/2", { ...fields, invite: "1", shownTotalCents: "99500", intent: "register" });
    expect(held.status).toBe(303);
    const r = await t.db("registrations").where({ form_session_id: fields.formSessionId }).first();
    expect(r).toMatchObject({ places: 5, amount_cents: 99500 });
  });

  it("the coach removes a family's row (a wrong or unknown athlete); another browser cannot", async () => {
    const tag = `h${++seq}`;
    const { coach, path, fields, token } = await coachWithLink(tag);
    for (const i of [1, 2]) await familySubmits(path, family(i, tag));
    const invite = await t.db("team_invites").where({ token_hash: secretTokenHash(token) }).first();
    const [junk] = await t.db("team_invite_rows").where({ invite_id: invite.id, first_name: "Fam2" });
    expect((await coach.get("/team-register/2")).text).toContain(`aria-label="Remove Fam2 Lastname2"`);
    // A stranger's browser posting the same button has no invite: nothing is removed.
    const stranger = await fresh();
    await stranger.get("/team-register/2");
    expect((await stranger.form("/team-register/2", { ...fields, removeInvited: String(junk.id) })).status).toBe(303);
    expect(await t.db("team_invite_rows").where({ invite_id: invite.id })).toHaveLength(2);
    const removed = await coach.form("/team-register/2", { ...fields, removeInvited: String(junk.id) });
    expect(removed.status).toBe(303);
    expect((await t.db("team_invite_rows").where({ invite_id: invite.id })).map((r: { first_name: string }) => r.first_name)).toEqual(["Fam1"]);
    const page = textOf((await coach.get("/team-register/2")).text);
    expect(page).not.toContain("Fam2 Lastname2");
    expect(page).toContain("Register Team - $597.00");
  });

  it(`never more than ${TEAM_MAXIMUM} athletes, however many families submit at once`, async () => {
    const tag = `e${++seq}`;
    const { path, token } = await coachWithLink(tag);
    const invite = await t.db("team_invites").where({ token_hash: secretTokenHash(token) }).first();
    // The coach's draft already holds all but three of the team's rows.
    await t.db("team_invites").where({ id: invite.id }).update({ rows_json: JSON.stringify(Array.from({ length: TEAM_MAXIMUM - 3 }, (_, i) => own(i + 1, tag))) });
    const families = await Promise.all(Array.from({ length: 8 }, () => fresh()));
    await Promise.all(families.map((f) => f.get(path)));
    const answers = await Promise.all(families.map((f, i) => f.form(path, asFields("athlete", family(i + 1, tag)))));
    expect(answers.filter((a) => a.status === 303)).toHaveLength(3);
    for (const a of answers.filter((x) => x.status !== 303)) expect(textOf(a.text)).toContain(INVITE_TEXT.full(TEAM_MAXIMUM));
    expect(await t.db("team_invite_rows").where({ invite_id: invite.id })).toHaveLength(3);
  });

  it("limits a family's posts per address (refused input counts too)", async () => {
    const tag = `f${++seq}`;
    const { path } = await coachWithLink(tag);
    const f = await fresh();
    await f.get(path);
    const statuses: number[] = [];
    for (let i = 0; i <= INVITE_SUBMIT_LIMIT.limit; i++) statuses.push((await f.form(path, asFields("athlete", family(1, tag, { email: "bad" })))).status);
    expect(statuses.slice(0, INVITE_SUBMIT_LIMIT.limit).every((s) => s === 400)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });

  it("families' rows hold no place: places are held only when the coach registers, and a team bigger than the places left is refused", async () => {
    const tag = `g${++seq}`;
    const { coach, path, fields } = await coachWithLink(tag);
    const before = (await t.db("event_places").where({ event_id: 2 }).first()).taken;
    for (const i of [1, 2, 3]) await familySubmits(path, family(i, tag));
    expect((await t.db("event_places").where({ event_id: 2 }).first()).taken).toBe(before);
    const capacity = (await t.db("events").where({ id: 2 }).first()).capacity;
    await t.db("events").where({ id: 2 }).update({ capacity: Number(before) + 4 });
    try {
      const refused = await coach.form("/team-register/2", { ...fields, invite: "1", shownTotalCents: "99500", intent: "register" });
      expect(textOf(refused.text)).toContain("Only 4 places are left at this event, not enough for your team of 5 athletes.");
      expect((await t.db("event_places").where({ event_id: 2 }).first()).taken).toBe(before);
    } finally {
      await t.db("events").where({ id: 2 }).update({ capacity });
    }
  });

  it("the coach registering in two tabs while families submit: one team, its places counted once, no error", async () => {
    const tag = `i${++seq}`;
    const { coach, path, fields } = await coachWithLink(tag);
    for (const i of [1, 2, 3]) await familySubmits(path, family(i, tag));
    const before = Number((await t.db("event_places").where({ event_id: 2 }).first()).taken);
    const late = await Promise.all([4, 5, 6].map(async (i) => { const f = await fresh(); await f.get(path); return { f, i }; }));
    const register = () => coach.agent.post("/api/team-registration").set("x-csrf-token", coach.token).set("x-forwarded-for", coach.ip)
      .send({ eventId: 2, coachInfo: { ...COACH, email: `coach.${tag}@example.com` }, athletes: [own(1, tag), own(2, tag)], formSessionId: fields.formSessionId, invite: true });
    const answers = await Promise.all([register(), register(), ...late.map(({ f, i }) => f.form(path, asFields("athlete", family(i, tag))))]);
    for (const a of answers) expect(a.status, a.text.slice(0, 200)).toBeLessThan(500);
    expect(answers.slice(2).every((a) => a.status === 303)).toBe(true);
    const teams = await t.db("registrations").where({ form_session_id: fields.formSessionId });
    expect(teams).toHaveLength(1);
    const held = teams[0];
    const athletes = await t.db("registration_athletes").where({ registration_id: held.id });
    expect(athletes).toHaveLength(held.places);
    expect(held.amount_cents).toBe(held.places * 19900);
    expect(held.places).toBeGreaterThanOrEqual(5);
    expect(Number((await t.db("event_places").where({ event_id: 2 }).first()).taken)).toBe(before + held.places);
    // Every row on the team is marked with its place; the rows that came after the hold are not on it.
    const rows = await t.db("team_invite_rows").where({ invite_id: (await t.db("team_invites").where({ registration_reference: held.reference }).first()).id });
    expect(rows.filter((r: { held_position: number | null }) => r.held_position !== null)).toHaveLength(held.places - 2);
  });

  it("a family's edit or a new row after the coach pressed Register changes neither the held team nor its amount", async () => {
    const tag = `j${++seq}`;
    const { coach, path, fields } = await coachWithLink(tag);
    const subs = [];
    for (const i of [1, 2, 3]) subs.push(await familySubmits(path, family(i, tag)));
    const held = await coach.form("/team-register/2", { ...fields, invite: "1", shownTotalCents: "99500", intent: "register" });
    expect(held.status).toBe(303);
    const r = await t.db("registrations").where({ form_session_id: fields.formSessionId }).first();
    expect(r).toMatchObject({ places: 5, amount_cents: 99500 });
    expect((await familySubmits(path, family(1, tag, { shirtSize: "4XL", lastName: "Changed" }), {}, subs[0]!.f)).res.status).toBe(303);
    expect((await familySubmits(path, family(4, tag))).res.status).toBe(303);
    const after = await t.db("registrations").where({ id: r.id }).first();
    expect(after).toMatchObject({ places: 5, amount_cents: 99500, version: r.version });
    const fam1 = await t.db("registration_athletes").where({ registration_id: r.id, position: 3 }).first();
    expect(fam1).toMatchObject({ last_name: "Lastname1", shirt_size: "Large" });
    // Registering again takes the rows as they are now: six athletes, re-priced.
    const again = await coach.form("/team-register/2", { ...fields, invite: "1", shownTotalCents: String(6 * 19900), intent: "register" });
    expect(again.status).toBe(303);
    expect(await t.db("registrations").where({ id: r.id }).first()).toMatchObject({ places: 6, amount_cents: 6 * 19900 });
    expect((await t.db("registration_athletes").where({ registration_id: r.id, position: 3 }).first()).last_name).toBe("Changed");
  });
});
