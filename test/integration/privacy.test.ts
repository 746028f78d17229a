import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backend, createTestApp, type TestApp } from "../support/app.ts";
import type { Db } from "../../src/db/knex.ts";
import { storeFile } from "../../src/db/storedFiles.ts";
import { applyRetention } from "../../src/privacy/retention.ts";
import { erasedAddress, erasePerson } from "../../src/privacy/erase.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

let n = 0;
const at = (iso: string) => new Date(iso);

async function order(db: Db, email: string, created: Date) {
  n += 1;
  const reference = `ORD-PRV${n}`;
  await db("orders").insert({
    reference, status: "paid", customer_first_name: "Quinn", customer_last_name: "Ray", customer_email: email, customer_phone: "205-555-0111",
    subtotal_cents: 5000, shipping_cents: 795, total_cents: 5795, currency: "usd", cart_fingerprint: "x", shopify_sync_status: "not_configured",
    ship_name: "Quinn Ray", ship_line1: "1 Main St", ship_city: "Austin", ship_state: "TX", ship_zip: "78701", created_at: created, updated_at: created, paid_at: created,
  });
  await db("payments").insert({ kind: "order", reference, provider: "stripe", provider_payment_id: `pi_prv${n}`, idempotency_key: `prv-${n}`, amount_cents: 5795, status: "paid", created_at: created, updated_at: created });
  return reference;
}

async function registration(db: Db, email: string, eventId: number, created: Date) {
  n += 1;
  const reference = `REG-PRV${n}`;
  const [id] = await db("registrations").insert({
    reference, event_id: eventId, kind: "individual", status: "paid", places: 1, package_code: "full", package_label: "Full Camp", list_price_cents: 24900,
    amount_cents: 24900, amount_paid_cents: 24900, contact_first_name: "Pat", contact_last_name: "Lee", contact_email: email, contact_phone: "205-555-0100",
    form_session_id: `privacy-${n}`, agreed_at: created, created_at: created, updated_at: created, paid_at: created,
  });
  await db("registration_athletes").insert({
    registration_id: id, position: 1, first_name: "Kim", last_name: "Lee", email, grade: "10th", gender: "Female", school_name: "Central High",
    emergency_contact_name: "Pat Lee", emergency_contact_phone: "205-555-0199", special_requirements: "Peanut allergy",
  });
  await db("payments").insert({ kind: "registration", reference, provider: "stripe", provider_payment_id: `pi_prv${n}`, idempotency_key: `prv-${n}`, amount_cents: 24900, status: "paid", created_at: created, updated_at: created });
  return { id: Number(id), reference };
}

async function coachRequest(db: Db, email: string, created: Date) {
  const logo = await db.transaction((trx) => storeFile(trx, { content: Buffer.from("GIF89a;"), contentType: "image/gif", extension: "gif" }));
  const [id] = await db("coach_requests").insert({
    event_id: 3, full_name: "Sam Coach", title: "Head Coach", college_name: "State", email, cell_phone: "205-555-0111", division_level: "D1",
    conference: "Big Ten", areas_of_interest: "", logo_file: logo.name, logo_content_type: "image/gif", logo_bytes: 7, created_at: created,
  });
  await db("coach_request_days").insert({ coach_request_id: id, event_day_id: 7 });
  return { id: Number(id), logo: logo.name };
}

async function message(db: Db, email: string, created: Date) {
  const [id] = await db("contact_messages").insert({ name: "Sam", email, subject: "Hi", message: "Hello", created_at: created });
  return Number(id);
}

async function email(db: Db, to: string, status: string, created: Date, sent: Date | null, replyTo: string | null = null) {
  const [id] = await db("email_outbox").insert({
    kind: "test", to_address: to, reply_to: replyTo, subject: "s", text_body: "t", status, attempts: 1, next_attempt_at: created, created_at: created, sent_at: sent,
  });
  return Number(id);
}

const exists = async (table: string, where: Record<string, unknown>) => Boolean(await t.db(table).where(where).first());

describe("the retention job (the privacy page's periods)", () => {
  it("deletes what has run out and keeps the rest; a second run deletes nothing", async () => {
    const now = at("2034-03-01T00:00:00Z");
    const oldMail = await email(t.db, "a@example.com", "sent", at("2033-11-01T00:00:00Z"), at("2033-11-01T00:00:00Z"));
    const newMail = await email(t.db, "a@example.com", "sent", at("2034-01-15T00:00:00Z"), at("2034-01-15T00:00:00Z"));
    const pendingOld = await email(t.db, "a@example.com", "pending", at("2033-01-01T00:00:00Z"), null);
    const oldMessage = await message(t.db, "a@example.com", at("2032-02-01T00:00:00Z"));
    const newMessage = await message(t.db, "a@example.com", at("2032-04-01T00:00:00Z"));
    const oldCoach = await coachRequest(t.db, "c@example.edu", at("2032-01-01T00:00:00Z"));
    const newCoach = await coachRequest(t.db, "c@example.edu", at("2033-01-01T00:00:00Z"));
    const oldOrder = await order(t.db, "o@example.com", at("2027-01-01T00:00:00Z"));
    const newOrder = await order(t.db, "o@example.com", at("2027-06-01T00:00:00Z"));
    // Created more than 7 years before `now`, but the camp (June 2027) ended less than 7 years before: kept.
    const campRegistration = await registration(t.db, "r@example.com", 2, at("2026-12-01T00:00:00Z"));

    // A "Registered before?" link is kept a day: it only counts the e-mails of the last 24 hours.
    const link = (hash: string, created: Date) => ({ token_hash: hash.repeat(64), email: "a@example.com", event_id: 1, form: "individual", created_at: created, expires_at: created });
    await t.db("returning_links").insert([link("a", at("2034-02-27T23:00:00Z")), link("b", at("2034-02-28T01:00:00Z"))]);
    const invite = async (updated: Date) => {
      const [id] = await t.db("team_invites").insert({ event_id: 2, token_hash: `${updated.getTime()}`.padEnd(64, "0"), form_session_id: "f", coach_json: "{}", rows_json: "[]", created_at: updated, updated_at: updated });
      await t.db("team_invite_rows").insert({ invite_id: id, first_name: "Sam", last_name: "Lee", age: 14, email: "s@example.com", shirt_size: "Large", parent_name: "Pat", parent_phone: "2055550100", created_at: updated, updated_at: updated });
      return Number(id);
    };
    const oldInvite = await invite(at("2033-11-01T00:00:00Z"));
    const newInvite = await invite(at("2034-01-15T00:00:00Z"));

    const counts = await applyRetention(t.db, now);
    expect(await exists("team_invites", { id: oldInvite })).toBe(false);
    expect(await exists("team_invite_rows", { invite_id: oldInvite })).toBe(false);
    expect(await exists("team_invite_rows", { invite_id: newInvite })).toBe(true);
    expect(counts).toMatchObject({ team_invites: 1, email_outbox: 1, contact_messages: 1, coach_requests: 1, orders: 1, registrations: 0, returning_links: 1 });
    expect(await t.db("returning_links").pluck("token_hash")).toEqual(["b".repeat(64)]);
    expect(await exists("email_outbox", { id: oldMail })).toBe(false);
    expect(await exists("email_outbox", { id: newMail })).toBe(true);
    expect(await exists("email_outbox", { id: pendingOld })).toBe(true);
    expect(await exists("contact_messages", { id: oldMessage })).toBe(false);
    expect(await exists("contact_messages", { id: newMessage })).toBe(true);
    expect(await exists("coach_requests", { id: oldCoach.id })).toBe(false);
    expect(await exists("coach_request_days", { coach_request_id: oldCoach.id })).toBe(false);
    expect(await exists("stored_files", { name: oldCoach.logo })).toBe(false);
    expect(await exists("stored_files", { name: newCoach.logo })).toBe(true);
    expect(await exists("orders", { reference: oldOrder })).toBe(false);
    expect(await exists("payments", { kind: "order", reference: oldOrder })).toBe(false);
    expect(await exists("orders", { reference: newOrder })).toBe(true);
    expect(await exists("payments", { kind: "order", reference: newOrder })).toBe(true);
    expect(await exists("registrations", { reference: campRegistration.reference })).toBe(true);

    expect(Object.values(await applyRetention(t.db, now)).every((c) => c === 0)).toBe(true);

    // Seven years after the camp ended, the registration goes, with its athlete, days and payment.
    const later = await applyRetention(t.db, at("2034-07-01T00:00:00Z"));
    expect(later.registrations).toBeGreaterThanOrEqual(1);
    expect(await exists("registrations", { reference: campRegistration.reference })).toBe(false);
    expect(await exists("registration_athletes", { registration_id: campRegistration.id })).toBe(false);
    expect(await exists("payments", { kind: "registration", reference: campRegistration.reference })).toBe(false);
  });
});

describe("erasing a person on request", () => {
  it("deletes what is only theirs, anonymises the money records keeping the amounts, and leaves others alone", async () => {
    const now = at("2027-03-01T10:00:00Z");
    const who = "Erin.Case@Example.com";
    const other = "other.person@example.com";
    const mine = {
      message: await message(t.db, "erin.case@example.com", now),
      coach: await coachRequest(t.db, who, now),
      order: await order(t.db, who, now),
      registration: await registration(t.db, "ERIN.CASE@example.com", 1, now),
      mail: await email(t.db, who, "sent", now, now),
      copy: await email(t.db, "team@example.com", "sent", now, now, who),
    };
    await t.db("newsletter_subscribers").insert({ email: "erin.case@example.com", source: "home", created_at: now });
    await t.db("quote_requests").insert({ organization: "Club", contact_name: "Erin", email: who, apparel_needs: "Singlets", created_at: now });
    const theirs = { message: await message(t.db, other, now), order: await order(t.db, other, now), registration: await registration(t.db, other, 1, now) };
    const returningLink = (email: string, hash: string) => ({ token_hash: hash.repeat(64), email, event_id: 1, form: "individual", created_at: now, expires_at: now });
    await t.db("returning_links").insert([returningLink("erin.case@example.com", "e"), returningLink(other, "f")]);

    const dry = await erasePerson(t.db, who, { dryRun: true });
    expect(dry).toMatchObject({ contact_messages: 1, quote_requests: 1, newsletter_subscribers: 1, email_outbox: 2, coach_requests: 1, orders_anonymised: 1, registrations_anonymised: 1, athletes_anonymised: 1 });
    expect(await exists("contact_messages", { id: mine.message })).toBe(true);

    expect(await erasePerson(t.db, "  erin.case@EXAMPLE.com ")).toEqual(dry);
    expect(await exists("contact_messages", { id: mine.message })).toBe(false);
    expect(await exists("coach_requests", { id: mine.coach.id })).toBe(false);
    expect(await exists("stored_files", { name: mine.coach.logo })).toBe(false);
    expect(await exists("email_outbox", { id: mine.mail })).toBe(false);
    expect(await exists("email_outbox", { id: mine.copy })).toBe(false);
    expect(await t.db("newsletter_subscribers").whereRaw("lower(email) = ?", ["erin.case@example.com"])).toEqual([]);
    expect(await t.db("quote_requests").whereRaw("lower(email) = ?", ["erin.case@example.com"])).toEqual([]);
    expect(await t.db("returning_links").pluck("email")).toEqual([other]);

    const address = erasedAddress("erin.case@example.com");
    expect(await t.db("orders").where({ reference: mine.order }).first()).toMatchObject({
      customer_first_name: "Erased", customer_last_name: "", customer_email: address, customer_phone: null, ship_name: null, ship_line1: null,
      ship_state: "TX", ship_zip: "78701", total_cents: 5795, status: "paid",
    });
    expect(await exists("payments", { kind: "order", reference: mine.order, amount_cents: 5795 })).toBe(true);
    expect(await t.db("registrations").where({ reference: mine.registration.reference }).first()).toMatchObject({ contact_first_name: "Erased", contact_email: address, amount_paid_cents: 24900 });
    expect(await t.db("registration_athletes").where({ registration_id: mine.registration.id }).first()).toMatchObject({
      first_name: "Erased", email: address, school_name: null, special_requirements: null, emergency_contact_name: "Erased",
    });
    expect(JSON.stringify(await t.db("registration_roster").where({ reference: mine.registration.reference }))).not.toMatch(/erin|Kim|Peanut/i);

    expect(await exists("contact_messages", { id: theirs.message })).toBe(true);
    expect(await t.db("orders").where({ reference: theirs.order }).first()).toMatchObject({ customer_first_name: "Quinn", customer_email: other });
    expect(await t.db("registrations").where({ reference: theirs.registration.reference }).first()).toMatchObject({ contact_first_name: "Pat", contact_email: other });
  });

  it.runIf(backend === "sqlite")("the command: --help, and bad input refused with one line", async () => {
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, ["--import", "tsx", path.join(root, "src/cli/erase.ts"), ...args], { cwd: root, env: { ...process.env, SQLITE_PATH: ":memory:" } }).then(
        (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    const [help, none, bad, unknown] = await Promise.all([run(["--help"]), run([]), run(["--email", "not-an-address"]), run(["--email", "a@b.example", "--force"])]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: npm run erase -- --email ADDRESS [--dry-run]");
    expect(none).toMatchObject({ code: 1, stderr: "Name the person: --email ADDRESS (see --help).\n" });
    expect(bad).toMatchObject({ code: 1, stderr: "not-an-address is not an e-mail address.\n" });
    expect(unknown).toMatchObject({ code: 1, stderr: "Unknown argument --force (see --help).\n" });
  }, 60_000);
});
