import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { createPaymentCore, moneyOf, refundAcross, type PaidOutcome, type PaymentCore } from "../../src/payments/core.ts";
import { lockingTransaction } from "../../src/db/transaction.ts";

/**
 * A payment group (src/payments/groups.ts): the payments of one thing (a registration and its changes) answer what
 * it paid, had refunded and is paying, and a refund is spread over them once per key.
 */
let t: TestApp;
let core: PaymentCore;

const OWN = "grouptest";
const EXTRA = "grouptest_extra";
const answers = new Map<string, PaidOutcome>();

beforeAll(async () => {
  t = await createTestApp();
  core = createPaymentCore({ db: t.db, gateway: t.gateway, logger: createLogger("silent") });
  for (const kind of [OWN, EXTRA]) core.register(kind, { onPaid: async (_trx, payment) => answers.get(`${payment.kind}:${payment.reference}`) ?? "accepted" });
});
afterAll(async () => {
  await core?.refundJobs.stop();
  await t?.gateway.offline?.idle();
  await t?.close();
});

let counter = 0;
const newReference = () => `G${Date.now().toString(36)}${(counter++).toString(36)}`.toUpperCase();

/** A payment of `cents` in `group`, paid with the test card (or only started when `pay` is false). */
async function payment(kind: string, reference: string, group: string, cents: number, pay = true) {
  const { clientSecret, payment } = await core.ensureIntent({ kind, reference, group, amountCents: cents, description: `Test ${reference}` });
  if (!pay) return payment;
  const intentId = clientSecret.split("_secret_")[0]!;
  expect(t.gateway.offline!.confirm(intentId, { number: "4242424242424242" }).status).toBe(200);
  return (await core.settle(intentId, "return")).payment;
}

describe("a payment group", () => {
  it("sums what its payments kept, what was refunded and what is in flight; a rejected payment is not its money", async () => {
    const group = newReference();
    const own = await payment(OWN, group, group, 24900);
    expect(own.group).toBe(group);
    const change = await payment(EXTRA, `${group}-1`, group, 5000);
    answers.set(`${EXTRA}:${group}-2`, { reject: "no longer wanted" });
    const rejected = await payment(EXTRA, `${group}-2`, group, 7000);
    expect(rejected.status).toBe("refund_pending");
    await payment(EXTRA, `${group}-3`, group, 1200, false);
    await payment(OWN, newReference(), newReference(), 999);

    const money = await moneyOf(t.db, group);
    expect(money).toMatchObject({ paidCents: 29900, refundedCents: 0, pendingCents: 1200, refundableCents: 29900 });
    expect(money.payments.map((p) => [p.payment.id, p.kept, p.rejected])).toEqual([
      [own.id, true, false],
      [change.id, true, false],
      [rejected.id, false, true],
      [expect.any(Number), false, false],
    ]);
  });

  it("spreads a refund over its payments, the newest first, once per key, in the caller's transaction", async () => {
    const group = newReference();
    const own = await payment(OWN, group, group, 24900);
    const change = await payment(EXTRA, `${group}-1`, group, 5000);

    const refund = (cents: number, key: string) => lockingTransaction(t.db, (trx) => refundAcross(trx, core, group, cents, key, "canceled"));
    await expect(lockingTransaction(t.db, async (trx) => {
      await refundAcross(trx, core, group, 6000, "rolled-back", "canceled");
      throw new Error("the caller gave up");
    })).rejects.toThrow("the caller gave up");
    expect((await moneyOf(t.db, group)).refundedCents).toBe(0);

    expect(await refund(6000, `cancel:${group}`)).toEqual([5000, 1000]);
    expect(await refund(6000, `cancel:${group}`)).toEqual([5000, 1000]);
    const refunds = [...(await core.refundsOf(change.id)), ...(await core.refundsOf(own.id))].map((r) => [r.paymentId, r.amountCents, r.requestKey]);
    expect(refunds).toEqual([
      [change.id, 5000, `cancel:${group}:payment:${change.id}`],
      [own.id, 1000, `cancel:${group}`],
    ]);
    expect(await moneyOf(t.db, group)).toMatchObject({ paidCents: 29900, refundedCents: 6000, refundableCents: 23900 });

    // Never more than is left: a second key refunds the rest and stops there.
    expect(await refund(99999, `all:${group}`)).toEqual([23900]);
    expect(await moneyOf(t.db, group)).toMatchObject({ refundedCents: 29900, refundableCents: 0 });
  });
});
