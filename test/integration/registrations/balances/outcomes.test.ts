import { Writable } from "node:stream";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPayingTestApp, type PayingTestApp } from "../../../support/app.ts";
import { balancesKit, CARDS, DAY_MS, moveClockTo } from "./kit.ts";
import { textOf } from "../../../support/http.ts";
import { now, resetClock } from "../../../../src/clock.ts";
import { placesTaken } from "../../../../src/events/repository.ts";
import { insertEntry } from "../../../../src/registrations/waitlist/tables/entries.ts";
import { DEFAULT_BALANCE_GRACE_DAYS } from "../../../../src/shared/registrations/deposits.ts";
import type { JobQueue } from "../../../../src/db/jobQueue.ts";
import { createOperatorContext } from "../../../../src/cli/operatorContext.ts";
import { listBalances } from "../../../../src/cli/payments.ts";
import { ROSTER_COLUMNS, runExport } from "../../../../src/cli/export.ts";

/**
 * The balance job's outcomes on the offline Stripe fake's test cards, with the app's clock moved to the due date and
 * past it (SQLite here, MySQL + Redis in integration-mysql): 4242 charged once with a receipt; 3184 asks for the
 * cardholder (a link, no retry) and is paid on the manage page; 9995 declined softly, tried again after 1, 3 and 7
 * days and overdue after the 4th; 0341 declined; a hard decline overdue at once; the grace date releases the places
 * to the waiting list; the reminders before; the operator's list and the export's columns.
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
afterEach(async () => {
  resetClock();
  await t.db("events").where({ id: 2 }).update({ capacity: 200, balance_due_days: 14, balance_grace_days: DEFAULT_BALANCE_GRACE_DAYS });
});

const drainOutbox = () => t.outbox.drain();

describe("a balance charged on its due date", () => {
  it("4242: nothing before the due date; on it $224 is charged once, the receipt sent, the registration paid in full", async () => {
    const { reference, id, dueAt } = await kit.depositRegistration(CARDS.succeeds);
    expect(Number((await kit.row(reference)).amount_paid_cents)).toBe(7500);

    moveClockTo(new Date(dueAt.getTime() - 60_000));
    await kit.runJob();
    expect(await kit.charges(id)).toHaveLength(0);
    expect(kit.balanceIntents(reference)).toHaveLength(0);

    moveClockTo(dueAt);
    await kit.runJob();
    await kit.runJob();
    const [charge, ...more] = await kit.charges(id);
    expect(more).toHaveLength(0);
    expect(charge).toMatchObject({ attempt: 1, status: "succeeded", amount_cents: 22400 });
    const r = await kit.row(reference);
    expect(r.status).toBe("paid");
    expect(Number(r.amount_paid_cents)).toBe(29900);
    const payments = await kit.balancePayments(reference);
    expect(payments.map((p) => [p.status, Number(p.amount_cents)])).toEqual([["paid", 22400]]);
    expect(kit.balanceIntents(reference).filter((i) => i.status === "succeeded")).toHaveLength(1);
    const receipts = await kit.mails(reference, "balance_receipt");
    expect(receipts).toHaveLength(1);
    await drainOutbox();
    expect(kit.mailText((await kit.mails(reference, "balance_receipt"))[0])).toContain("We received the balance of $224.00");
    // Sent as the other receipts are: text and HTML, with the date, the card and the breakdown.
    const [receipt] = await kit.mails(reference, "balance_receipt");
    for (const part of ["Paid on: May 22, 2027", "Card: Visa ending 4242", "Total: $299.00", "Paid before: $75.00", "Balance: $224.00", "Still owed: $0.00"]) expect(receipt.text_body, part).toContain(part);
    for (const part of ["<th align=\"left\">Paid on</th><td>May 22, 2027</td>", "<td>Visa ending 4242", "<th align=\"left\">Total</th><td>$299.00</td>", "<th align=\"left\">Balance</th><td>$224.00</td>"]) expect(String(receipt.html_body), part).toContain(part);

    // The roster (and the export, which is its columns) shows the deposit, nothing owed, paid in full.
    const roster = await t.db("registration_roster").where({ reference }).first();
    expect(roster).toMatchObject({ status: "paid", balance_due: expect.anything() });
    expect(String(roster.deposit_paid)).toMatch(/^75(\.00)?$/);
    expect(String(roster.balance)).toMatch(/^0(\.00)?$/);
  });

  it("3184: the bank asks for the cardholder: a link is e-mailed, no retry, and the balance is paid on the manage page", async () => {
    const { reference, id, dueAt } = await kit.depositRegistration(CARDS.authentication);
    moveClockTo(dueAt);
    await kit.runJob();
    expect((await kit.charges(id)).map((c) => c.status)).toEqual(["authentication_required"]);
    expect((await kit.row(reference)).status).toBe("deposit_paid");
    const [mail] = await kit.mails(reference, "balance_authentication");
    expect(mail).toBeDefined();
    const link = /\/my-registration\/([A-Za-z0-9_-]{43})/.exec(kit.mailText(mail))![0];

    // Days later: still the one attempt (no retry of a card that needs its holder).
    moveClockTo(new Date(dueAt.getTime() + 3 * DAY_MS));
    await kit.runJob();
    expect(await kit.charges(id)).toHaveLength(1);

    // The e-mailed link opens the manage page; "Pay the balance now" pays the PaymentIntent the job left, on session,
    // 3-D Secure passed: one PaymentIntent in all.
    const paid = await kit.payBalanceOnManagePage(link);
    expect(paid).toMatchObject({ status: 200, body: { status: "paid" } });
    expect(kit.balanceIntents(reference).map((i) => i.id)).toEqual([paid.intentId]);
    const r = await kit.row(reference);
    expect(r.status).toBe("paid");
    expect(Number(r.amount_paid_cents)).toBe(29900);
    expect(await kit.mails(reference, "balance_receipt")).toHaveLength(1);
    await kit.runJob();
    expect(await kit.charges(id)).toHaveLength(1);
  });
});

describe("declines", () => {
  it("9995 (insufficient funds, a team): tried again 1, 3 and 7 days after the due date, each failure e-mailed to the coach, then balance_overdue", async () => {
    // The default grace (10 days) outlasts the last attempt (7 days after the due date): the places are still kept then.
    expect(Number((await t.db("events").where({ id: 2 }).first()).balance_grace_days)).toBe(DEFAULT_BALANCE_GRACE_DAYS);
    const { reference, id, dueAt } = await kit.depositTeam(5, CARDS.insufficientFunds);
    const coach = String((await kit.row(reference)).contact_email);
    const attemptsAt = [0, 1, 3, 7].map((d) => new Date(dueAt.getTime() + d * DAY_MS));
    for (const [i, at] of attemptsAt.entries()) {
      // Just before each attempt is due: nothing is tried.
      if (i > 0) {
        moveClockTo(new Date(at.getTime() - 60_000));
        await kit.runJob();
        expect(await kit.charges(id)).toHaveLength(i);
      }
      moveClockTo(at);
      await kit.runJob();
      await kit.runJob();
      expect(await kit.charges(id)).toHaveLength(i + 1);
    }
    // At the 4th failure (the job, release included, ran twice at that instant): overdue, its 5 places still counted.
    expect((await kit.row(reference)).status).toBe("balance_overdue");
    expect(await placesTaken(t.db, 2, now())).toBe((await placesTaken(t.db, 2, now(), id)) + 5);
    const charges = await kit.charges(id);
    expect(charges.map((c) => [c.attempt, c.status, c.decline_code])).toEqual([1, 2, 3, 4].map((n) => [n, "declined", "insufficient_funds"]));
    expect(new Set(charges.map((c) => c.idempotency_key)).size).toBe(4);
    expect((await kit.row(reference)).status).toBe("balance_overdue");
    const declined = await kit.mails(reference, "balance_declined");
    expect(declined).toHaveLength(3);
    expect(declined.every((m) => m.to_address === coach)).toBe(true);
    const [overdue] = await kit.mails(reference, "balance_overdue");
    expect(overdue.to_address).toBe(coach);
    // 5 athletes at $199, $75 each paid as the deposit.
    expect(overdue.text_body).toContain("We could not charge the balance of $620.00 for Steel City");
    expect(overdue.text_body).toContain("Your card has insufficient funds. Nothing was charged");
    // The places are still held (until the grace date), and the e-mailed link opens the page to pay it.
    expect(Number((await kit.row(reference)).places)).toBe(5);
    const link = /\/my-registration\/[A-Za-z0-9_-]{43}/.exec(kit.mailText(overdue))![0];
    const page = await request(t.app).get(link).set("x-forwarded-for", "198.18.200.1");
    expect(page.status).toBe(200);
    expect(textOf(page.text)).toContain("$620.00");

    // The operator sees it.
    const listed = await listBalances(createOperatorContext(t.config, t.db, t.logger), now(), { overdueOnly: true });
    expect(listed).toMatch(new RegExp(`${reference}\\s+.*balance_overdue\\s+\\$620\\.00.*4/4\\s+declined insufficient_funds`));
    expect(listed).not.toContain(coach);
  });

  it("0341: the card attached at the deposit is declined at the balance (card_declined, generic_decline), e-mailed with the next try", async () => {
    const { reference, id, dueAt } = await kit.depositRegistration(CARDS.genericDecline);
    moveClockTo(dueAt);
    await kit.runJob();
    const [charge] = await kit.charges(id);
    expect(charge).toMatchObject({ status: "declined", decline_code: "generic_decline" });
    expect(charge.next_attempt_at).not.toBeNull();
    expect(await kit.mails(reference, "balance_declined")).toHaveLength(1);
    expect(kit.balanceIntents(reference).filter((i) => i.status === "succeeded")).toHaveLength(0);
  });

  it("a decline no retry can change (no card to charge) is overdue at once, and the grace date releases the places to the waiting list, the deposit refunded as the policy says", async () => {
    // A due date 45 days before the camp: the grace date (10 days later) is 35 days before it, a full refund under the policy.
    await t.db("events").where({ id: 2 }).update({ balance_due_days: 45 });
    const { reference, id, dueAt } = await kit.depositRegistration(CARDS.succeeds, "release.family@example.com");
    await t.db("events").where({ id: 2 }).update({ balance_due_days: 14 });
    await t.db("registrations").where({ id }).update({ payment_method_id: null });
    moveClockTo(dueAt);
    await kit.runJob();
    expect((await kit.charges(id)).map((c) => [c.status, c.hard_decline ? 1 : 0])).toEqual([["declined", 1]]);
    expect((await kit.row(reference)).status).toBe("balance_overdue");
    expect(await kit.mails(reference, "balance_overdue")).toHaveLength(1);

    // The event is full and a family waits for a place.
    const taken = await placesTaken(t.db, 2, now());
    await t.db("events").where({ id: 2 }).update({ capacity: taken });
    await t.db.transaction((trx) => insertEntry(trx, 2, { kind: "individual", places: 1, packageCode: "full", firstName: "Wren", lastName: "Waiting", email: "wren.waiting@example.com", phone: "(205) 555-0177", teamName: undefined }, "leave-hash-balances", now()));

    // Before the grace date the places are kept.
    const grace = new Date(dueAt.getTime() + DEFAULT_BALANCE_GRACE_DAYS * DAY_MS);
    moveClockTo(new Date(grace.getTime() - 60_000));
    await kit.runJob();
    expect((await kit.row(reference)).status).toBe("balance_overdue");

    moveClockTo(grace);
    const [first, second] = await Promise.all([kit.runJob(), kit.runJob()]);
    expect(first.released + second.released).toBe(1);
    const r = await kit.row(reference);
    expect(r.status).toBe("withdrawn");
    expect(Number(r.withdrawal_refund_cents)).toBe(7500);
    const refunds = await t.db("payment_refunds as f").join("payments as p", "p.id", "f.payment_id").where("p.reference", reference).select("f.amount_cents");
    expect(refunds.map((f) => Number(f.amount_cents))).toEqual([7500]);
    const [released] = await kit.mails(reference, "balance_released");
    expect(released.text_body).toContain("a refund of $75.00 (100% of $75.00)");
    // The waiting family gets the place.
    await (t.app.locals.offerQueue as JobQueue).drain();
    expect((await t.db("waiting_list_entries").where({ contact_email: "wren.waiting@example.com" }).first()).status).toBe("offered");
  });
});

describe("reminders", () => {
  it("7 and 2 days before the due date, once each: the amount, the date, the card's last 4 digits and expiry; a card expiring first is told to update", async () => {
    const { reference, id, dueAt } = await kit.depositRegistration(CARDS.succeeds, "reminded@example.com");
    moveClockTo(new Date(dueAt.getTime() - 8 * DAY_MS));
    await kit.runJob();
    expect(await kit.mails(reference, "balance_reminder")).toHaveLength(0);

    moveClockTo(new Date(dueAt.getTime() - 7 * DAY_MS));
    await Promise.all([kit.runJob(), kit.runJob()]);
    await kit.runJob();
    const [week, ...none] = await kit.mails(reference, "balance_reminder");
    expect(none).toHaveLength(0);
    const r = await kit.row(reference);
    expect(week.text_body).toContain("$224.00");
    expect(week.text_body).toContain(`ending ${String(r.card_last4)} (expires ${String(r.card_exp_month).padStart(2, "0")}/${String(r.card_exp_year)})`);
    expect(week.text_body).toMatch(/on May 22, 2027/);
    expect(week.text_body).not.toContain("expires before then");
    for (const part of ["Charge date: May 22, 2027", "Total: $299.00", "Paid before: $75.00", "Balance: $224.00"]) expect(week.text_body, part).toContain(part);
    for (const part of ["<th align=\"left\">Charge date</th><td>May 22, 2027</td>", `<td>Visa ending ${String(r.card_last4)}`, "<th align=\"left\">Balance</th><td>$224.00</td>", "/my-registration/"]) expect(String(week.html_body), part).toContain(part);

    // The card now expires the month before the due date: the second reminder says to update it.
    await t.db("registrations").where({ id }).update({ card_exp_month: 4, card_exp_year: 2027 });
    moveClockTo(new Date(dueAt.getTime() - 2 * DAY_MS));
    await Promise.all([kit.runJob(), kit.runJob()]);
    const reminders = await kit.mails(reference, "balance_reminder");
    expect(reminders).toHaveLength(2);
    expect(reminders[1].text_body).toContain("Your card expires before then: update it");
    expect(await kit.charges(id)).toHaveLength(0);
  });
});

describe("the operator's view", () => {
  it("payments balances lists what is owed, soonest first, and --due-within narrows it; the export has the new columns", async () => {
    const { reference } = await kit.depositRegistration(CARDS.succeeds, "listed@example.com");
    const ctx = createOperatorContext(t.config, t.db, t.logger);
    const all = await listBalances(ctx, now(), { overdueOnly: false });
    expect(all).toMatch(new RegExp(`${reference}\\s+National Champ Camp\\s+deposit_paid\\s+\\$224\\.00\\s+2027-05-2\\d\\s+2027-0[56]-\\d\\d\\s+0/4\\s+not tried yet`));
    expect(all).toContain("l***@example.com");
    expect(await listBalances(ctx, now(), { dueWithinDays: 7, overdueOnly: false })).not.toContain(reference);

    let csv = "";
    const out = new Writable({ write: (chunk, _e, done) => ((csv += String(chunk)), done()) });
    await runExport(t.db, { name: "registrations", eventId: 2 }, out);
    const [head, ...lines] = csv.replace(/^\uFEFF/, "").trim().split("\r\n");
    expect(head!.split(",")).toEqual(ROSTER_COLUMNS);
    // Counted from the end: a quoted field earlier on the line may hold a comma.
    expect(ROSTER_COLUMNS.slice(-4)).toEqual(["deposit_paid", "balance", "balance_due", "sibling_discount"]);
    const line = lines.find((l) => l.startsWith(reference))!.split(",");
    expect(line.slice(-4)).toEqual(["75.00", "224.00", expect.stringMatching(/^2027-05-2\d \d\d:00:00$/), ""]);
    expect((await t.db("registration_roster").where({ reference }).first()).status).toBe("deposit_paid");
  });
});
