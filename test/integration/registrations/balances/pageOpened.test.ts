import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPayingTestApp, type PayingTestApp } from "../../../support/app.ts";
import { balancesKit, CARDS, DAY_MS, moveClockTo } from "./kit.ts";
import { paidChangesKit } from "../changes/helpers.ts";
import { textOf } from "../../../support/http.ts";
import { now, resetClock } from "../../../../src/clock.ts";
import { issueManageLink, MANAGE_PATH } from "../../../../src/registrations/changes/links.ts";
import { DEFAULT_BALANCE_GRACE_DAYS } from "../../../../src/shared/registrations/deposits.ts";
import { createOperatorContext } from "../../../../src/cli/operatorContext.ts";
import { listBalances } from "../../../../src/cli/payments.ts";
import { createApp } from "../../../../src/app.ts";
import { createLogger } from "../../../../src/logger.ts";

/**
 * "Pay the balance now" opened and left unpaid (issue 41, item 1): the page's PaymentIntent is on the Customer that
 * holds the saved card, so the job charges that card on the due date; a refusal no retry can cure ends the retries
 * (balance_overdue, e-mailed, released at the grace date); a balance past due the job has not settled is reported.
 */
let t: PayingTestApp;
let kit: ReturnType<typeof balancesKit>;

beforeAll(async () => {
  t = await createPayingTestApp({ TRUST_PROXY_HOPS: "1" });
  kit = balancesKit(t);
  await t.db("events").where({ id: 2 }).update({ capacity: 200 });
});
afterAll(async () => {
  resetClock();
  await t?.close();
});
afterEach(() => resetClock());

/** The manage page's "Pay the balance now" opened (its PaymentIntent made) and closed without paying. */
async function openPayBalanceAndLeave(id: number): Promise<string> {
  const token = await issueManageLink(t.db, id, "balance", now());
  const path = `${MANAGE_PATH}/${token}`;
  const page = await (await paidChangesKit(t).browser(path)).get(`${path}/balance`);
  expect(page.status).toBe(200);
  return /"clientSecret":"([^"]+)"/.exec(page.text)![1]!.split("_secret_")[0]!;
}

describe("Pay the balance now opened, not paid", () => {
  it("4242: on the due date the saved card is charged once, on the page's PaymentIntent, and the receipt sent", async () => {
    const { reference, id, dueAt } = await kit.depositRegistration(CARDS.succeeds, "opened.page@example.com");
    const intentId = await openPayBalanceAndLeave(id);
    expect(t.fake.intents.get(intentId)!.customer).toBe(String((await kit.row(reference)).stripe_customer_id));

    moveClockTo(dueAt);
    await kit.runJob();
    await kit.runJob();
    expect((await kit.charges(id)).map((c) => c.status)).toEqual(["succeeded"]);
    const r = await kit.row(reference);
    expect(r.status).toBe("paid");
    expect(Number(r.amount_paid_cents)).toBe(29900);
    expect(kit.balanceIntents(reference).filter((i) => i.status === "succeeded").map((i) => i.id)).toEqual([intentId]);
    expect(await kit.mails(reference, "balance_receipt")).toHaveLength(1);
  });

  it("a page's PaymentIntent made before it was put on the Customer (none) is put on it, and the saved card is charged once", async () => {
    const { reference, id, dueAt } = await kit.depositRegistration(CARDS.succeeds, "opened.before@example.com");
    const intentId = await openPayBalanceAndLeave(id);
    t.fake.intents.get(intentId)!.customer = null;

    moveClockTo(dueAt);
    await kit.runJob();
    expect((await kit.charges(id)).map((c) => c.status)).toEqual(["succeeded"]);
    expect((await kit.row(reference)).status).toBe("paid");
    expect(kit.balanceIntents(reference).filter((i) => i.status === "succeeded").map((i) => i.id)).toEqual([intentId]);
  });

  it("0341: declined, tried again, then balance_overdue with the e-mails and released at the grace date", async () => {
    const { reference, id, dueAt } = await kit.depositRegistration(CARDS.genericDecline, "opened.declined@example.com");
    await openPayBalanceAndLeave(id);
    for (const d of [0, 1, 3, 7]) {
      moveClockTo(new Date(dueAt.getTime() + d * DAY_MS));
      await kit.runJob();
      if (d === 0) {
        // Declined on its day, tried again later: the page no longer says "We charge it on that day".
        const path = `${MANAGE_PATH}/${await issueManageLink(t.db, id, "balance", now())}`;
        const page = textOf((await (await paidChangesKit(t).browser(path)).get(path)).text);
        expect(page).toContain("$224.00 was due on May 22, 2027 and is not paid yet. Pay it now, or we try the card again and e-mail you.");
        expect(page).not.toContain("We charge it");
      }
    }
    expect((await kit.charges(id)).map((c) => [c.status, c.decline_code])).toEqual([1, 2, 3, 4].map(() => ["declined", "generic_decline"]));
    expect((await kit.row(reference)).status).toBe("balance_overdue");
    expect(await kit.mails(reference, "balance_declined")).toHaveLength(3);
    expect(await kit.mails(reference, "balance_overdue")).toHaveLength(1);
    moveClockTo(new Date(dueAt.getTime() + DEFAULT_BALANCE_GRACE_DAYS * DAY_MS));
    await kit.runJob();
    expect((await kit.row(reference)).status).toBe("withdrawn");
    expect(await kit.mails(reference, "balance_released")).toHaveLength(1);
  });

  it("a refusal no retry can cure (the intent on another Customer) ends in balance_overdue at once, e-mailed, not retried", async () => {
    const { reference, id, dueAt } = await kit.depositRegistration(CARDS.succeeds, "opened.refused@example.com");
    const intentId = await openPayBalanceAndLeave(id);
    // As a PaymentIntent made before the fix, or moved in Stripe's dashboard: on a Customer that does not hold the card.
    const other = await t.gateway.createCustomer({ reference: `${reference}-other`, email: "other@example.com", name: "Other", idempotencyKey: `other-${reference}` });
    t.fake.intents.get(intentId)!.customer = other.id;

    moveClockTo(dueAt);
    await kit.runJob();
    moveClockTo(new Date(dueAt.getTime() + DAY_MS));
    await kit.runJob();
    const charges = await kit.charges(id);
    expect(charges.map((c) => [c.attempt, c.status, c.hard_decline ? 1 : 0])).toEqual([[1, "declined", 1]]);
    expect((await kit.row(reference)).status).toBe("balance_overdue");
    const [overdue, ...more] = await kit.mails(reference, "balance_overdue");
    expect(more).toHaveLength(0);
    expect(overdue.text_body).toContain("We could not charge the balance of $224.00");
    expect(overdue.text_body).not.toContain("belongs to another Customer");
    expect(kit.balanceIntents(reference).filter((i) => i.status === "succeeded")).toHaveLength(0);
  });

  it("a balance past its due date that is neither paid nor overdue is reported: logged at error and listed by payments balances", async () => {
    const { reference, id, dueAt } = await kit.depositRegistration(CARDS.succeeds, "opened.stuck@example.com");
    // Stripe never answers this instance: each attempt can only be sent again later.
    const lines: { level: number; msg: string; references?: string[] }[] = [];
    const logger = createLogger("info", { write: (s: string) => void lines.push(JSON.parse(s) as (typeof lines)[number]) });
    const unanswered = createApp({ ...t, logger, gateway: { ...t.gateway, chargeOffSession: () => Promise.reject(new Error("connect ETIMEDOUT")), confirmOffSession: () => Promise.reject(new Error("connect ETIMEDOUT")) } });
    moveClockTo(dueAt);
    await kit.runJob(unanswered);
    expect(lines.filter((l) => l.level >= 50 && l.references?.includes(reference))).toEqual([]);
    moveClockTo(new Date(dueAt.getTime() + 2 * 60 * 60_000));
    await kit.runJob(unanswered);
    expect((await kit.charges(id)).map((c) => c.status)).toEqual(["retry"]);
    const reported = lines.filter((l) => l.level >= 50 && l.references?.includes(reference));
    expect(reported).toHaveLength(1);
    expect(reported[0]!.msg).toMatch(/past their due date, neither paid nor overdue/);
    const listed = await listBalances(createOperatorContext(t.config, t.db, t.logger), now(), { overdueOnly: false });
    expect(listed).toMatch(new RegExp(`past their due date, neither paid nor overdue: .*${reference}`));
  });
});
