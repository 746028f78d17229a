import { Writable } from "node:stream";
import { sentText } from "../../../support/mail.ts";
import { describe, expect, it } from "vitest";
import { changesApp, until } from "./helpers.ts";
import request from "supertest";
import { textOf, visitor } from "../../../support/http.ts";
import { createLogger } from "../../../../src/logger.ts";
import { LOST_CONFIRMATION_LIMITS } from "../../../../src/registrations/changes/links.ts";
import { backend } from "../../../support/app.ts";

/**
 * "Lost your confirmation?" posted 30 times at once for one registered address, from 30 connections (the probe's
 * 30/30): 3 e-mails, 3 new links a day; each new link replaces the earlier ones, which open for the grace period only.
 */
const resent: number[] = [];
const failures: string[] = [];
const t = changesApp({
  logger: createLogger("info", new Writable({ write: (chunk: Buffer, _e, done) => {
    for (const line of chunk.toString().split("\n").filter(Boolean)) {
      const l = JSON.parse(line) as { msg: string; sent?: number; err?: string };
      if (l.msg === "manage links re-sent") resent.push(l.sent!);
      if (l.msg === "could not re-send manage links") failures.push(l.err!);
    }
    done();
  } })),
});

const ATHLETE = {
  firstName: "Maya", lastName: "Ortiz", email: "lost.parent@example.com", phone: "(702) 555-0100", grade: "9th", gender: "Female", schoolName: "Desert High",
  emergencyContactName: "Ana Ortiz", emergencyContactPhone: "702-555-0199", adult: "on", agrees: "on",
};

/**
 * Connections open before the burst (MySQL): 30 cold connects at once on CI's loaded machine once outlasted the app's
 * 2 s connect budget (mysql2's timer fires late on a busy event loop: "connect ETIMEDOUT"), which is not what this
 * test is about. A warm-up that meets the same trouble is tried again; the burst then finds the pool open.
 */
async function warmPool(connections: number) {
  if (backend !== "mysql") return;
  for (let attempt = 0; attempt < 5; attempt++) {
    const warmed = await Promise.allSettled(Array.from({ length: connections }, () => t.db.raw("select sleep(0.2)")));
    if (warmed.every((w) => w.status === "fulfilled")) return;
  }
}

/** Waits for every re-send to end; a failed one fails the test with its error. */
async function untilAllEnded(count: number) {
  await until(() => resent.length + failures.length >= count);
  expect(failures).toEqual([]);
}

const tokenIn = (text: string) => /\/my-registration\/([A-Za-z0-9_-]{43})/.exec(text)![1]!;
const opens = async (token: string) => (await request(t.app).get(`/my-registration/${token}`).set("x-forwarded-for", "198.18.0.1")).status;

describe("Lost your confirmation?", () => {
  it("sends at most 3 link e-mails a day for a registration, each new link retiring the earlier ones after the grace, and answers unknown addresses the same", async () => {
    const v = await visitor(t.app);
    const res = await v.post("/api/events/2/create-payment-intent").set("x-forwarded-for", "203.0.113.5").send({ option: "full", formSessionId: `lost-form-${Date.now()}`, registrationData: { ...ATHLETE, registrationType: "full" } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const reference = res.body.registrationId as string;
    const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
    t.fake.confirm(intentId, { number: "4242 4242 4242 4242" });
    expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId })).body.status).toBe("paid");
    const confirmation = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_confirmation" }).first();
    const confirmationToken = tokenIn(sentText(t.mailDir, confirmation));

    await warmPool(30);
    const answers = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const visit = await visitor(t.app, "/events/2");
        const posted = await visit.form("/events/2/lost-confirmation", { email: i % 2 ? "lost.parent@example.com" : `nobody${i}@example.com` }).set("x-forwarded-for", `198.51.100.${i + 1}`);
        expect(posted.status).toBe(303);
        return textOf((await visit.get("/events/2").set("x-forwarded-for", `198.51.100.${i + 1}`)).text).match(/Check your inbox[^.]*\./)?.[0];
      }),
    );
    expect(new Set(answers).size).toBe(1);
    await untilAllEnded(30);
    const mails = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_manage_link" }).orderBy("id");
    expect(mails).toHaveLength(LOST_CONFIRMATION_LIMITS.perRegistrationPerDay);
    expect(resent.reduce((a, b) => a + b, 0)).toBe(3);
    const id = (await t.db("registrations").where({ reference }).first()).id;
    expect(await t.db("registration_manage_links").where({ registration_id: id, sent_by: "resend" })).toHaveLength(3);

    // Within the grace period every link still opens; after it only the newest does.
    const tokens = [confirmationToken, ...mails.map((m: { text_body: string }) => tokenIn(sentText(t.mailDir, m)))];
    for (const token of tokens) expect(await opens(token)).toBe(200);
    // The e-mailed links but the newest (a confirmation page's own link, written when the browser's return settled the
    // payment rather than the webhook, is retired with them: left out of the count).
    const retired = (await t.db("registration_manage_links").where({ registration_id: id }).whereNotNull("revoked_at")).filter((l: { sent_by: string | null }) => l.sent_by !== "page");
    expect(retired).toHaveLength(3);
    for (const link of retired as { revoked_at: Date | string; created_at: Date | string }[]) expect(new Date(link.revoked_at).getTime()).toBeGreaterThan(Date.now());
    // 15 minutes later, as the clock would have it.
    await t.db("registration_manage_links").where({ registration_id: id }).whereNotNull("revoked_at").update({ revoked_at: new Date(Date.now() - 1000) });
    expect(await Promise.all(tokens.map(opens))).toEqual([404, 404, 404, 200]);
  });
});
