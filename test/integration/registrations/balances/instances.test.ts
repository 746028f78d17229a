import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Express } from "express";
import { backend, createPayingTestApp, type PayingTestApp } from "../../../support/app.ts";
import { balancesKit, CARDS, moveClockTo } from "./kit.ts";
import { createDb, type Db } from "../../../../src/db/knex.ts";
import { createApp } from "../../../../src/app.ts";
import { chargeInput } from "../../../../src/registrations/balances/job.ts";
import { STALE_CLAIM_MS } from "../../../../src/db/jobQueue.ts";
import { now, resetClock } from "../../../../src/clock.ts";

/**
 * The balance job on two app instances (on MySQL each with its own connection pool on the one database; on SQLite the
 * one process twice), and a job that died between its claim and the outcome: each balance is charged once, and no
 * attempt is lost.
 */
let t: PayingTestApp;
let kit: ReturnType<typeof balancesKit>;
let otherDb: Db;
let apps: [Express, Express];

beforeAll(async () => {
  t = await createPayingTestApp({ TRUST_PROXY_HOPS: "1" });
  kit = balancesKit(t);
  otherDb = backend === "mysql" ? createDb(t.config.database, t.logger) : t.db;
  apps = [t.app, createApp({ ...t, db: otherDb })];
  await t.db("events").where({ id: 2 }).update({ capacity: 200 });
});
afterAll(async () => {
  resetClock();
  if (otherDb !== t.db) await otherDb.destroy();
  await t?.close();
});
afterEach(() => {
  resetClock();
});

describe("two instances run the job at once", () => {
  it("each balance is charged once, whichever instance claims it; the receipts and reminders go once", async () => {
    const registrations = [];
    for (let i = 0; i < 4; i++) registrations.push(await kit.depositRegistration(CARDS.succeeds, `twice.${i}@example.com`));
    const dueAt = registrations[0]!.dueAt;
    moveClockTo(new Date(dueAt.getTime() - 2 * 86_400_000));
    await Promise.all([kit.runJob(apps[0]), kit.runJob(apps[1]), kit.runJob(apps[0]), kit.runJob(apps[1])]);
    moveClockTo(dueAt);
    await Promise.all([kit.runJob(apps[0]), kit.runJob(apps[1]), kit.runJob(apps[1]), kit.runJob(apps[0])]);
    for (const { reference, id } of registrations) {
      expect((await kit.charges(id)).map((c) => c.status)).toEqual(["succeeded"]);
      expect(kit.balanceIntents(reference).filter((i) => i.status === "succeeded")).toHaveLength(1);
      expect((await kit.balancePayments(reference)).filter((p) => p.status === "paid")).toHaveLength(1);
      expect((await kit.row(reference)).status).toBe("paid");
      expect(await kit.mails(reference, "balance_receipt")).toHaveLength(1);
      expect(await kit.mails(reference, "balance_reminder")).toHaveLength(1);
    }
  });
});

describe("a job killed between its claim and the outcome", () => {
  /** The fake Stripe as an instance's gateway, noting the idempotency key of every call that sends one. */
  function keysSentThrough(sent: { call: string; key: unknown }[]): typeof t.gateway {
    return Object.fromEntries(
      Object.entries(t.gateway).map(([call, value]) => [
        call,
        typeof value === "function"
          ? (...args: unknown[]) => {
              for (const arg of args) if (arg && typeof arg === "object" && "idempotencyKey" in arg) sent.push({ call, key: arg.idempotencyKey });
              return (value as (...a: unknown[]) => unknown).apply(t.gateway, args);
            }
          : value,
      ]),
    ) as typeof t.gateway;
  }

  async function claimLeftBehind(id: number, key: string) {
    await t.db("balance_charges").insert({ registration_id: id, attempt: 1, idempotency_key: key, amount_cents: 22400, status: "claimed", claims: 1, claimed_at: new Date(now().getTime() - STALE_CLAIM_MS - 1000), created_at: now() });
  }

  it("it had charged the card: the attempt is sent again with the same key, Stripe answers with that charge, nothing more is taken", async () => {
    const { reference, id, dueAt } = await kit.depositRegistration(CARDS.succeeds, "killed.after@example.com");
    moveClockTo(dueAt);
    const r = await kit.row(reference);
    const key = `balance-${reference}-1-deadbeef`;
    await claimLeftBehind(id, key);
    // What the instance did before it died: the charge itself, with the attempt's key.
    const answer = await kit.otherInstanceCore().chargeSavedCard(chargeInput({ reference }, { customerId: String(r.stripe_customer_id), paymentMethodId: String(r.payment_method_id) }, { attempt: 1, amountCents: 22400, idempotencyKey: key }));
    expect(answer.outcome).toBe("succeeded");

    // A fresh claim is not stolen: only one older than the stale time is.
    await Promise.all([kit.runJob(apps[0]), kit.runJob(apps[1])]);
    const [charge, ...more] = await kit.charges(id);
    expect(more).toHaveLength(0);
    expect(charge).toMatchObject({ attempt: 1, status: "succeeded", idempotency_key: key, claims: 2 });
    expect(kit.balanceIntents(reference).filter((i) => i.status === "succeeded")).toHaveLength(1);
    expect((await kit.balancePayments(reference)).map((p) => p.status)).toEqual(["paid"]);
    expect((await kit.row(reference)).status).toBe("paid");
    expect(await kit.mails(reference, "balance_receipt")).toHaveLength(1);
  });

  it("Stripe charged the card but the instance died before it heard: the instance taking the attempt over finds that charge among the customer's, nothing more is taken", async () => {
    const { reference, id, dueAt } = await kit.depositRegistration(CARDS.succeeds, "killed.midcall@example.com");
    moveClockTo(dueAt);
    const r = await kit.row(reference);
    const key = `balance-${reference}-1-0badf00d`;
    await claimLeftBehind(id, key);
    // The instance that died: Stripe charged the card, the answer never reached it.
    const dying = kit.otherInstanceCore({
      ...t.gateway,
      async chargeOffSession(input) {
        await t.gateway.chargeOffSession(input);
        throw new Error("the process was killed");
      },
    });
    await expect(dying.chargeSavedCard(chargeInput({ reference }, { customerId: String(r.stripe_customer_id), paymentMethodId: String(r.payment_method_id) }, { attempt: 1, amountCents: 22400, idempotencyKey: key }))).rejects.toThrow(/killed/);
    expect(kit.balanceIntents(reference).map((i) => i.status)).toEqual(["succeeded"]);

    await Promise.all([kit.runJob(apps[0]), kit.runJob(apps[1])]);
    expect((await kit.charges(id)).map((c) => [c.attempt, c.status, c.idempotency_key])).toEqual([[1, "succeeded", key]]);
    expect(kit.balanceIntents(reference).map((i) => i.status)).toEqual(["succeeded"]);
    expect((await kit.balancePayments(reference)).map((p) => [p.status, p.provider_payment_id])).toEqual([["paid", kit.balanceIntents(reference)[0]!.id]]);
    expect((await kit.row(reference)).status).toBe("paid");
    expect(await kit.mails(reference, "balance_receipt")).toHaveLength(1);
  });

  it("it died before asking Stripe: the attempt is not lost, it is made with its key, once", async () => {
    const { reference, id, dueAt } = await kit.depositRegistration(CARDS.succeeds, "killed.before@example.com");
    moveClockTo(dueAt);
    const key = `balance-${reference}-1-cafebabe`;
    await claimLeftBehind(id, key);
    // The instance that takes it over charges with the attempt's own key, so a third instance doing the same at
    // that moment would get Stripe's one answer, not a second charge.
    const sent: { call: string; key: unknown }[] = [];
    await kit.runJob(createApp({ ...t, gateway: keysSentThrough(sent) }));
    expect(sent).toEqual([{ call: "chargeOffSession", key }]);
    await Promise.all([kit.runJob(apps[0]), kit.runJob(apps[1])]);
    expect((await kit.charges(id)).map((c) => [c.attempt, c.status, c.idempotency_key])).toEqual([[1, "succeeded", key]]);
    expect(kit.balanceIntents(reference).filter((i) => i.status === "succeeded")).toHaveLength(1);
    expect((await kit.row(reference)).status).toBe("paid");
  });

  it("a claim still fresh (its instance is charging now) is left to it", async () => {
    const { id, dueAt } = await kit.depositRegistration(CARDS.succeeds, "still.running@example.com");
    moveClockTo(dueAt);
    await t.db("balance_charges").insert({ registration_id: id, attempt: 1, idempotency_key: `balance-fresh-${id}`, amount_cents: 22400, status: "claimed", claims: 1, claimed_at: now(), created_at: now() });
    await kit.runJob();
    expect((await kit.charges(id)).map((c) => [c.status, c.claims])).toEqual([["claimed", 1]]);
  });
});
