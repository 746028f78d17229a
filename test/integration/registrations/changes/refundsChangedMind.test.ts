import { describe, expect, it } from "vitest";
import { changesApp } from "./helpers.ts";
import request from "supertest";
import { csrfFrom, textOf, visitor } from "../../../support/http.ts";
import { sentText } from "../../../support/mail.ts";
import type { JobQueue } from "../../../../src/db/jobQueue.ts";
import { createOperatorContext, type OperatorContext } from "../../../../src/cli/operatorContext.ts";
import { listFailedRefunds } from "../../../../src/cli/payments.ts";
import { REFUND_EXIT, runRefundCommand } from "../../../../src/cli/refund.ts";

/**
 * Refunds Stripe changes its mind about, through the real routes and the offline fake's test cards: a cancellation's
 * refund that succeeds and then fails (4000 0000 0000 5126), and one that stays pending (4000 0000 0000 7726).
 */
let ctx: OperatorContext;
const t = changesApp({
  async setup(app) {
    ctx = createOperatorContext(app.config, app.db, app.logger);
  },
});

let seq = 0;
const ATHLETE = {
  firstName: "Maya", lastName: "Ortiz", phone: "(702) 555-0100", grade: "9th", gender: "Female", schoolName: "Desert High",
  emergencyContactName: "Ana Ortiz", emergencyContactPhone: "702-555-0199", adult: "on", agrees: "on",
};
const drainRefunds = async () => {
  await (t.app.locals.refundJobs as JobQueue).drain();
  await t.fake.idle();
};
const row = (reference: string) => t.db("registrations").where({ reference }).first();
const emailsOf = (reference: string, kind: string) => t.db("email_outbox").where({ reference: `registration:${reference}`, kind });

/** A registration for event 2 ($299, full camp) paid with `card`, canceled through its manage link (a full refund). */
async function canceledWith(card: string) {
  const v = await visitor(t.app);
  const ip = `198.18.7.${++seq}`;
  const res = await v.post("/api/events/2/create-payment-intent").set("x-forwarded-for", ip).send({ option: "full", formSessionId: `changed-mind-${seq}-${Date.now()}`, registrationData: { ...ATHLETE, email: `payer${seq}@example.com`, registrationType: "full" } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const reference = res.body.registrationId as string;
  const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
  expect(t.fake.confirm(intentId, { number: card }).status).toBe(200);
  expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId })).body.status).toBe("paid");
  const mail = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_confirmation" }).first();
  const path = `/my-registration/${/\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, mail))![1]!}`;
  const agent = request.agent(t.app);
  const page = await agent.get(`${path}/cancel`).set("x-forwarded-for", ip);
  const version = /name="version" value="(\d+)"/.exec(page.text)![1]!;
  const canceled = await agent.post(`${path}/cancel`).set("x-forwarded-for", ip).type("form").send({ version, scope: "all", _csrf: csrfFrom(page.text) });
  expect(canceled.status).toBe(303);
  await drainRefunds();
  const manage = async () => textOf((await agent.get(path).set("x-forwarded-for", ip)).text);
  return { reference, intentId, manage };
}

const refundsAtStripe = (intentId: string) => [...t.fake.refunds.values()].filter((r) => r.payment_intent === intentId);

describe("a refund that Stripe takes and then fails (card 5126)", () => {
  it("shows the refund failed (state, roster, page), e-mails a correction once, lists it for the operator, and npm run refund sends it again once", async () => {
    const { reference, intentId, manage } = await canceledWith("4000 0000 0000 5126");
    expect(await row(reference)).toMatchObject({ status: "refunded", amount_refunded_cents: 29900 });
    expect(await emailsOf(reference, "registration_refunded")).toHaveLength(1);

    // Stripe's refund.updated: failed. The money is back with the shop.
    t.fake.settleRefunds();
    await t.fake.idle();
    expect(await row(reference)).toMatchObject({ status: "refund_failed", amount_refunded_cents: 0 });
    const payment = await t.db("payments").where({ kind: "registration", reference }).first();
    expect(payment).toMatchObject({ status: "paid", amount_refunded_cents: 0 });
    const [roster] = await t.db("registration_roster").where({ reference });
    expect(roster.status).toBe("refund_failed");
    expect(Number(roster.amount_refunded)).toBe(0);
    expect(await manage()).toContain("Canceled: the refund did not go through, and we are sending it again");
    const corrections = await emailsOf(reference, "registration_refund_failed");
    expect(corrections).toHaveLength(1);
    expect(corrections[0].text_body).toContain("The refund of $299.00 for Maya Ortiz at National Champ Camp");
    // The webhook again changes nothing (one correction).
    const failedEvent = t.fake.events.filter((e) => e.type === "refund.updated").at(-1)!;
    expect(await t.fake.deliver(failedEvent)).toBe(200);
    expect(await emailsOf(reference, "registration_refund_failed")).toHaveLength(1);

    const listed = await listFailedRefunds(ctx, new Date());
    expect(listed).toContain(reference);
    expect(listed).toContain("$299.00");

    // The operator sends it again: the amount still owed, once, however often the command runs.
    const lines: string[] = [];
    expect(await runRefundCommand(ctx, { kind: "registration", reference, reason: "refund again after the card company sent it back", waitSeconds: 0 }, (l) => void lines.push(l))).toBe(REFUND_EXIT.queued);
    await drainRefunds();
    expect(lines[0]).toMatch(/^Requested refund \d+ of \$299\.00 \(registration .*: failed refund \d+ again\)\.$/);
    expect(await row(reference)).toMatchObject({ status: "refunded", amount_refunded_cents: 29900 });
    await expect(runRefundCommand(ctx, { kind: "registration", reference, reason: "refund again after the card company sent it back", waitSeconds: 0 }, () => {})).rejects.toThrow(/nothing to refund/);
    await drainRefunds();
    expect(refundsAtStripe(intentId)).toHaveLength(2);
    expect(await listFailedRefunds(ctx, new Date())).toBe("No refund has failed.");
    // The payer was told it is being sent again: its acceptance by Stripe is not another "Refunded" e-mail.
    expect(await emailsOf(reference, "registration_refunded")).toHaveLength(1);

    // That retry fails too (the same card): the correction only, not another "Refunded" then "did not go through".
    t.fake.settleRefunds();
    await t.fake.idle();
    expect(await row(reference)).toMatchObject({ status: "refund_failed", amount_refunded_cents: 0 });
    expect(await emailsOf(reference, "registration_refunded")).toHaveLength(1);
    expect(await emailsOf(reference, "registration_refund_failed")).toHaveLength(2);
  });
});

describe("a refund that stays pending (card 7726)", () => {
  it("shows the payer it is pending, not refunded, and e-mails nothing until it succeeds", async () => {
    const { reference, manage } = await canceledWith("4000 0000 0000 7726");
    expect(await row(reference)).toMatchObject({ status: "withdrawn", amount_refunded_cents: 0 });
    expect(await manage()).toContain("Canceled: a refund of $299.00 is pending with the card company");
    expect(await emailsOf(reference, "registration_refunded")).toHaveLength(0);
    t.fake.settleRefunds();
    await t.fake.idle();
    expect(await row(reference)).toMatchObject({ status: "refunded", amount_refunded_cents: 29900 });
    expect(await manage()).not.toContain("pending with the card company");
    expect(await emailsOf(reference, "registration_refunded")).toHaveLength(1);
  });
});
