import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPayingTestApp, type PayingTestApp } from "../../../support/app.ts";
import { textOf, visitor } from "../../../support/http.ts";
import { sentText } from "../../../support/mail.ts";
import { ATHLETE, athleteFields, paidChangesKit, teamAthlete, until } from "./helpers.ts";
import { placesTaken } from "../../../../src/events/repository.ts";
import { moneyOf } from "../../../../src/payments/groups.ts";
import type { JobQueue } from "../../../../src/db/jobQueue.ts";

/**
 * A deposit-paid registration on its manage link (README: Deposits): what is paid and owed and when, paying the
 * balance now (its PaymentIntent, one for every tab), and the changes under the policy with a deposit: a cancellation
 * refunds the policy's share of what was paid, an upgrade raises the balance and charges nothing, a cheaper package
 * refunds only what was paid above its price. SQLite and MySQL.
 */
let t: PayingTestApp;
let kit: ReturnType<typeof paidChangesKit>;

beforeAll(async () => {
  // Each browser of the kit has its own address (x-forwarded-for): the manage pages' per-address limit counts each apart.
  t = await createPayingTestApp({ TRUST_PROXY_HOPS: "1" });
  kit = paidChangesKit(t);
});
afterAll(async () => {
  await t?.close();
});
beforeEach(async () => {
  t.fake.autoDeliver = true;
  await t.fake.idle();
  await t.db("events").where({ id: 2 }).update({ deposit_kind: "fixed", deposit_value: 7500, changes_freeze_at: null });
});

let seq = 0;
/** A deposit-paid registration of event 2 (the package's price; $75 deposit) and its manage link from the confirmation e-mail. */
async function depositPaid(registrationType = "full", days: Record<string, boolean> = {}) {
  const v = await visitor(t.app);
  const res = await v
    .post("/api/events/2/create-payment-intent")
    .send({ option: registrationType, formSessionId: `deposit-manage-${String(++seq).padStart(4, "0")}-${Date.now()}`, registrationData: { ...ATHLETE, registrationType, paymentPlan: "deposit", ...days } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const reference = res.body.registrationId as string;
  const intentId = (res.body.clientSecret as string).split("_secret_")[0]!;
  expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
  expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: intentId })).body.status).toBe("paid");
  expect(await kit.row(reference)).toMatchObject({ status: "deposit_paid" });
  const email = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_confirmation" }).first();
  const token = /\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, email))![1]!;
  return { reference, path: `/my-registration/${token}` };
}

const balancePayments = (reference: string) => t.db("payments").where({ kind: "registration_balance", reference });
const refundsOf = async (reference: string) => {
  const ids = await t.db("payments").where({ reference }).pluck("id");
  return t.db("payment_refunds").whereIn("payment_id", ids).orderBy("id");
};

describe("the manage page of a deposit plan", () => {
  it("shows what is paid and owed and when; 'Pay the balance now' gives every tab the one PaymentIntent for what is owed", async () => {
    const { reference, path } = await depositPaid();
    const b = await kit.browser(path);
    const page = textOf((await b.get(path).expect(200)).text);
    expect(page).toContain("Deposit paid");
    expect(page).toContain("Balance due $224.00 on May 22, 2027");
    expect(page).toContain("$224.00 is due on May 22, 2027.");
    expect(page).toContain("Pay the balance now");
    expect(page).toContain("Use another card");

    // Two tabs open the page at once: one balance payment, one PaymentIntent, for what is owed.
    const [one, two] = await Promise.all([b.get(`${path}/balance`), b.get(`${path}/balance`)]);
    expect(one.status).toBe(200);
    expect(two.status).toBe(200);
    expect(kit.intentOf(one.text)).toBe(kit.intentOf(two.text));
    const payments = await balancePayments(reference);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ amount_cents: 22400, status: "pending" });
    expect(t.fake.intents.get(kit.intentOf(one.text)!)).toMatchObject({ amount: 22400, metadata: { kind: "registration_balance", reference } });
    expect(textOf(one.text)).toContain("Pay Your Balance");

    // The return call settles only this registration's own balance intent.
    expect((await b.json(`${path}/balance/paid`, { paymentIntentId: "pi_someone_else" })).status).toBe(403);
  });
});

describe("'Use another card'", () => {
  it("saves a card through a SetupIntent on the registration's Customer; the next charge uses it", async () => {
    const { reference, path } = await depositPaid();
    await until(async () => (await kit.row(reference)).card_last4 === "4242");
    const b = await kit.browser(path);
    const page = await b.get(`${path}/card`).expect(200);
    expect(textOf(page.text)).toContain("Your balance is charged to Visa ending 4242, expires 12/2034.");
    const setupIntentId = /"setupIntentId":"(seti_[^"]+)"/.exec(page.text)![1]!;
    // Not confirmed yet: nothing changes.
    expect((await b.json(`${path}/card/done`, { setupIntentId })).status).toBe(409);
    expect(t.fake.confirmSetup(setupIntentId, { number: "5555 5555 5555 4444", expMonth: 6, expYear: 2031 }).status).toBe(200);
    expect((await b.json(`${path}/card/done`, { setupIntentId })).status).toBe(200);
    const row = await kit.row(reference);
    expect(row).toMatchObject({ card_brand: "mastercard", card_last4: "4444", card_exp_month: 6, card_exp_year: 2031 });
    expect(row.payment_method_id).toBe(t.fake.setupIntents.get(setupIntentId)!.payment_method);
    expect(textOf((await b.get(path)).text)).toContain("We charge it to Mastercard ending 4444, expires 06/2031 on that day.");

    // A card saved for another registration's Customer is refused.
    const other = await depositPaid();
    const otherPage = await (await kit.browser(other.path)).get(`${other.path}/card`);
    const foreign = /"setupIntentId":"(seti_[^"]+)"/.exec(otherPage.text)![1]!;
    expect(t.fake.confirmSetup(foreign, { number: "4242 4242 4242 4242" }).status).toBe(200);
    const refused = await b.json(`${path}/card/done`, { setupIntentId: foreign });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe("This card was not saved for this registration.");
    expect(await kit.row(reference)).toMatchObject({ card_last4: "4444" });
  });
});

describe("changes under the policy with a deposit", () => {
  it("a cancellation refunds the policy's share of what was paid (the deposit), never the price, and frees the place", async () => {
    const { reference, path } = await depositPaid();
    const before = await placesTaken(t.db, 2, new Date());
    const b = await kit.browser(path);
    expect(textOf((await b.get(`${path}/cancel`).expect(200)).text)).toContain("You get back $75.00 (100% of $75.00).");
    expect((await b.post(`${path}/cancel`, { version: b.version, scope: "all" })).status).toBe(303);
    expect(await kit.row(reference)).toMatchObject({ status: "withdrawn", withdrawal_refund_cents: 7500 });
    expect(await placesTaken(t.db, 2, new Date())).toBe(before - 1);
    const refunds = await refundsOf(reference);
    expect(refunds.map((r: { amount_cents: number }) => Number(r.amount_cents))).toEqual([7500]);
  });

  it("an upgrade raises the balance, not the deposit: nothing is charged now", async () => {
    const { reference, path } = await depositPaid("2day", { day1: true, day3: true });
    expect(await kit.row(reference)).toMatchObject({ amount_cents: 23800, amount_paid_cents: 7500 });
    const b = await kit.browser(path);
    expect(textOf((await b.get(`${path}/upgrade`)).text)).toContain("Full Camp (3 Days) ($299.00): your balance grows by $61.00");
    const posted = await b.post(`${path}/upgrade`, { version: b.version, registrationType: "full" });
    expect(posted.status).toBe(303);
    expect(posted.headers.location).toBe(path);
    expect(await kit.row(reference)).toMatchObject({ status: "deposit_paid", package_code: "full", amount_cents: 29900, amount_paid_cents: 7500, deposit_cents: 7500 });
    expect(await t.db("registration_changes")).toHaveLength(0);
    expect(await t.db("payments").where({ reference })).toHaveLength(1);
    expect(textOf((await b.get(path)).text)).toContain("Balance due $224.00 on May 22, 2027");
    const changed = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_changed" }).first();
    expect(changed.text_body).toContain("nothing charged now: the balance is $224.00, due on May 22, 2027");
  });

  it("a cheaper package lowers the balance; below what was paid it refunds the difference and the registration is paid", async () => {
    // $75 paid on the full camp: 2 days ($238) lowers the balance and refunds nothing.
    const first = await depositPaid();
    let b = await kit.browser(first.path);
    expect((await b.post(`${first.path}/package`, { version: b.version, registrationType: "2day", day1: "on", day3: "on" })).status).toBe(303);
    expect(await kit.row(first.reference)).toMatchObject({ status: "deposit_paid", amount_cents: 23800, amount_paid_cents: 7500 });
    expect(await refundsOf(first.reference)).toHaveLength(0);

    // A $150 deposit on the full camp, then 1 day ($119): $31 back, nothing owed.
    await t.db("events").where({ id: 2 }).update({ deposit_value: 15000 });
    const second = await depositPaid();
    b = await kit.browser(second.path);
    expect(textOf((await b.get(second.path)).text)).toContain("1 Day ($119.00): you get back $31.00");
    expect((await b.post(`${second.path}/package`, { version: b.version, registrationType: "1day", day2: "on" })).status).toBe(303);
    expect(await kit.row(second.reference)).toMatchObject({ status: "paid", amount_cents: 11900, amount_paid_cents: 15000 });
    expect((await refundsOf(second.reference)).map((r: { amount_cents: number }) => Number(r.amount_cents))).toEqual([3100]);
  });
});

describe("paying the balance on the manage page", () => {
  /** Both tabs of one payer open "Pay the balance now": the one PaymentIntent for what is owed. */
  async function balanceIntent(path: string) {
    const b = await kit.browser(path);
    const [one, two] = await Promise.all([b.get(`${path}/balance`), b.get(`${path}/balance`)]);
    expect(one.status).toBe(200);
    expect(two.status).toBe(200);
    const intentId = kit.intentOf(one.text)!;
    expect(kit.intentOf(two.text)).toBe(intentId);
    return { b, intentId };
  }
  const succeededEvents = (intentId: string) => t.fake.events.filter((e) => e.type === "payment_intent.succeeded" && (e.data.object as { id?: string }).id === intentId);

  it("4242: the return call and the webhook settle it once: paid in full, one balance payment in the group, the receipt e-mailed", async () => {
    const { reference, path } = await depositPaid();
    const { b, intentId } = await balanceIntent(path);
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    const answer = await b.json(`${path}/balance/paid`, { paymentIntentId: intentId });
    expect(answer.status).toBe(200);
    expect((answer.body as { status: string }).status).toBe("paid");
    await t.fake.idle();
    const delivered = t.fake.deliveries.filter((d) => succeededEvents(intentId).some((e) => e.id === d.eventId));
    expect(delivered.map((d) => d.status)).toContain(200);

    expect(await kit.row(reference)).toMatchObject({ status: "paid" });
    expect(Number((await kit.row(reference)).amount_paid_cents)).toBe(29900);
    const balance = await balancePayments(reference);
    expect(balance).toHaveLength(1);
    expect(balance[0]).toMatchObject({ amount_cents: 22400, status: "paid" });
    const money = await moneyOf(t.db, reference);
    expect(money.paidCents).toBe(29900);
    expect(money.payments.filter((p) => p.kept).map((p) => p.payment.kind).sort()).toEqual(["registration", "registration_balance"]);
    const receipts = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "balance_receipt" });
    expect(receipts).toHaveLength(1);
    expect(textOf((await b.get(path)).text)).not.toContain("Pay the balance now");
  });

  it("two tabs pay the balance at once: one charge, the registration paid once", async () => {
    t.fake.autoDeliver = false;
    const { reference, path } = await depositPaid();
    const { b, intentId } = await balanceIntent(path);
    const c = await kit.browser(path);
    // Both tabs press Pay: Stripe confirms the intent once; the second confirmation finds it already succeeded.
    const confirms = [t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }), t.fake.confirm(intentId, { number: "4242 4242 4242 4242" })];
    expect(confirms.filter((r) => r.status === 200 && (r.body as { status?: string }).status === "succeeded")).toHaveLength(1);
    expect(succeededEvents(intentId)).toHaveLength(1);
    // Both tabs' return calls and the webhook settle it at the same moment.
    const [event] = succeededEvents(intentId);
    const [one, two, hook] = await Promise.all([
      b.json(`${path}/balance/paid`, { paymentIntentId: intentId }),
      c.json(`${path}/balance/paid`, { paymentIntentId: intentId }),
      t.fake.deliver(event!),
    ]);
    expect([one.status, two.status, hook]).toEqual([200, 200, 200]);
    expect([(one.body as { status: string }).status, (two.body as { status: string }).status]).toEqual(["paid", "paid"]);

    const r = await kit.row(reference);
    expect(r).toMatchObject({ status: "paid" });
    expect(Number(r.amount_paid_cents)).toBe(29900);
    const paid = (await balancePayments(reference)).filter((p: { status: string }) => p.status === "paid");
    expect(paid).toHaveLength(1);
    expect((await moneyOf(t.db, reference)).paidCents).toBe(29900);
    // Not settled twice: no second settlement rejected and refunded.
    expect(await refundsOf(reference)).toHaveLength(0);
    expect(await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "balance_receipt" })).toHaveLength(1);
  });

  it("a cancellation after the balance was paid refunds the policy's share across the deposit and the balance, never more than was paid", async () => {
    const { reference, path } = await depositPaid();
    const { b, intentId } = await balanceIntent(path);
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await b.json(`${path}/balance/paid`, { paymentIntentId: intentId })).status).toBe(200);
    await t.fake.idle();
    expect(await kit.row(reference)).toMatchObject({ status: "paid" });

    const c = await kit.browser(path);
    expect(textOf((await c.get(`${path}/cancel`).expect(200)).text)).toContain("You get back $299.00 (100% of $299.00).");
    expect((await c.post(`${path}/cancel`, { version: c.version, scope: "all" })).status).toBe(303);
    expect(await kit.row(reference)).toMatchObject({ status: "withdrawn", withdrawal_refund_cents: 29900 });
    await t.fake.idle();

    // One refund per payment, each at most what that payment took, 100% of $299 in all.
    const payments = await t.db("payments").where({ reference }).whereNotNull("paid_at");
    const refunds = await refundsOf(reference);
    expect(refunds).toHaveLength(2);
    for (const p of payments) {
      const back = refunds.filter((f: { payment_id: number }) => f.payment_id === p.id).reduce((s: number, f: { amount_cents: number }) => s + Number(f.amount_cents), 0);
      expect(back).toBe(Number(p.amount_cents));
    }
    const money = await moneyOf(t.db, reference);
    expect(money.refundedCents).toBe(29900);
    expect(money.refundedCents).toBeLessThanOrEqual(money.paidCents);
    // A second cancellation (another tab) changes nothing.
    await c.post(`${path}/cancel`, { version: c.version, scope: "all" });
    expect(await refundsOf(reference)).toHaveLength(2);
  });
});

/** A team of 5 on plan deposit ($375 paid, $620 owed) and the coach's manage link from the roster e-mail. */
async function depositTeam(tag: string) {
  const v = await visitor(t.app);
  const res = await v
    .post("/api/team-registration")
    .send({ eventId: 2, paymentPlan: "deposit", coachInfo: { firstName: "Dana", lastName: "Brooks", email: `coach.${tag}@example.com`, phone: "(205) 555-0142", teamName: `WC ${tag}` }, athletes: [1, 2, 3, 4, 5].map((i) => teamAthlete(i, tag)), formSessionId: `deposit-team-${tag}-${Date.now()}` });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const reference = res.body.registrationId as string;
  const depositIntent = (res.body.clientSecret as string).split("_secret_")[0]!;
  expect(t.fake.confirm(depositIntent, { number: "4242 4242 4242 4242" }).status).toBe(200);
  expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: depositIntent, option: "team" })).body.status).toBe("paid");
  const email = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "team_registration_confirmation" }).first();
  return { reference, path: `/my-registration/${/\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, email))![1]!}` };
}

describe("a team on a deposit plan", () => {
  it("the balance paid in another tab while the added athlete's deposit is being paid: the athlete's payment is refunded, never a paid team that owes", async () => {
    const { reference, path } = await depositTeam("race");
    const b = await kit.browser(path);
    const posted = await b.post(`${path}/athletes`, athleteFields(0, teamAthlete(6, "race")));
    expect(posted.status).toBe(303);
    const changeIntent = kit.intentOf((await b.get(posted.headers.location!).expect(200)).text)!;
    const balancePage = await b.get(`${path}/balance`).expect(200);
    const balanceIntent = kit.intentOf(balancePage.text)!;
    expect(t.fake.confirm(changeIntent, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect(t.fake.confirm(balanceIntent, { number: "4242 4242 4242 4242" }).status).toBe(200);
    // Both returns at once; the balance settles first or the change does, never both kept with the balance unpaid.
    const [change, balance] = await Promise.all([b.json(`${posted.headers.location!}/paid`, { paymentIntentId: changeIntent }), b.json(`${path}/balance/paid`, { paymentIntentId: balanceIntent })]);
    await t.fake.idle();
    const r = await kit.row(reference);
    const owed = Number(r.amount_cents) - Number(r.amount_paid_cents);
    if (r.status === "paid") {
      // The balance came first: the team is paid in full for its 5, the athlete's $75 refunded.
      expect(r).toMatchObject({ places: 5, amount_cents: 99500, amount_paid_cents: 99500 });
      expect(change.body.status).toBe("refunded");
      expect(balance.body.status).toBe("paid");
      await (t.app.locals.refundJobs as JobQueue).drain();
      await t.fake.idle();
      const changePayments = await t.db("payments").where({ kind: "registration_change", group_reference: reference }).pluck("id");
      const refunds = await t.db("payment_refunds").whereIn("payment_id", changePayments);
      expect(refunds.map((f) => [Number(f.amount_cents), f.status])).toEqual([[7500, "succeeded"]]);
      expect(await t.db("registration_athletes").where({ registration_id: r.id })).toHaveLength(5);
    } else {
      // The athlete came first: the balance payment (for the $620 shown) no longer matches the $744 owed, and waits
      // in review for the operator (the money kept, the registration as it is).
      expect(r).toMatchObject({ status: "deposit_paid", places: 6, amount_cents: 119400, amount_paid_cents: 45000 });
      expect(balance.body.status).toBe("needs_review");
      expect(owed).toBe(74400);
    }
  });

  it("the balance paid first, then the added athlete's deposit: that payment is refunded and the team stays paid in full for 5", async () => {
    const { reference, path } = await depositTeam("seq");
    const b = await kit.browser(path);
    const posted = await b.post(`${path}/athletes`, athleteFields(0, teamAthlete(6, "seq")));
    const changeIntent = kit.intentOf((await b.get(posted.headers.location!).expect(200)).text)!;
    const balanceIntent = kit.intentOf((await b.get(`${path}/balance`).expect(200)).text)!;
    expect(t.fake.confirm(balanceIntent, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await b.json(`${path}/balance/paid`, { paymentIntentId: balanceIntent })).body.status).toBe("paid");
    expect(t.fake.confirm(changeIntent, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await b.json(`${posted.headers.location!}/paid`, { paymentIntentId: changeIntent })).body.status).toBe("refunded");
    await (t.app.locals.refundJobs as JobQueue).drain();
    await t.fake.idle();
    const r = await kit.row(reference);
    expect(r).toMatchObject({ status: "paid", places: 5, amount_cents: 99500, amount_paid_cents: 99500 });
    const changePayments = await t.db("payments").where({ kind: "registration_change", group_reference: reference }).pluck("id");
    expect((await t.db("payment_refunds").whereIn("payment_id", changePayments)).map((f) => Number(f.amount_cents))).toEqual([7500]);
  });

  it("the coach adds an athlete: the deposit for them is charged, the athlete is on the roster and the rest joins the balance", async () => {
    const v = await visitor(t.app);
    const res = await v
      .post("/api/team-registration")
      .send({ eventId: 2, paymentPlan: "deposit", coachInfo: { firstName: "Dana", lastName: "Brooks", email: "coach.deposit.add@example.com", phone: "(205) 555-0142", teamName: "Deposit Add WC" }, athletes: [1, 2, 3, 4, 5].map((i) => teamAthlete(i, "da")), formSessionId: `deposit-team-add-${Date.now()}` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const reference = res.body.registrationId as string;
    const depositIntent = (res.body.clientSecret as string).split("_secret_")[0]!;
    expect(t.fake.confirm(depositIntent, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await v.post("/api/events/2/stripe-payment-success").send({ paymentIntentId: depositIntent, option: "team" })).body.status).toBe("paid");
    expect(await kit.row(reference)).toMatchObject({ status: "deposit_paid", places: 5, amount_cents: 99500, amount_paid_cents: 37500 });
    const email = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "team_registration_confirmation" }).first();
    const path = `/my-registration/${/\/my-registration\/([A-Za-z0-9_-]{43})/.exec(sentText(t.mailDir, email))![1]!}`;

    const b = await kit.browser(path);
    expect(textOf((await b.get(`${path}/athletes`).expect(200)).text)).toContain("$199.00 per athlete (the team price): on your deposit plan $75.00 each today, paid by card, and $124.00 each added to the balance due on May 22, 2027.");
    const posted = await b.post(`${path}/athletes`, athleteFields(0, teamAthlete(6, "da")));
    expect(posted.status).toBe(303);
    const payPage = await b.get(posted.headers.location!).expect(200);
    expect(textOf(payPage.text)).toContain("Today $75.00 (the deposit); $124.00 is added to the balance");
    const intentId = kit.intentOf(payPage.text)!;
    // The deposit's saved card is offered first, and can pay: the change's PaymentIntent is on the card's Customer.
    expect(payPage.text).toContain("Visa ending 4242");
    const customer = (await kit.row(reference)).stripe_customer_id as string;
    expect(customer).toBeTruthy();
    expect(t.fake.intents.get(intentId)?.customer).toBe(customer);
    expect(t.fake.confirm(intentId, { number: "4242 4242 4242 4242" }).status).toBe(200);
    expect((await b.json(`${posted.headers.location!}/paid`, { paymentIntentId: intentId })).body.status).toBe("paid");

    const r = await kit.row(reference);
    expect(r).toMatchObject({ status: "deposit_paid", places: 6, amount_cents: 119400, amount_paid_cents: 45000 });
    expect((await t.db("registration_athletes").where({ registration_id: r.id })).map((a) => a.first_name)).toContain("Kid6da");
    expect(await refundsOf(reference)).toHaveLength(0);
    expect(textOf((await b.get(path)).text)).toContain("Balance due $744.00");
    const [mail] = await t.db("email_outbox").where({ reference: `registration:${reference}`, kind: "registration_changed" });
    expect(mail.text_body).toContain("1 athlete added (Kid6da Brooks), $75.00 paid, $124.00 added to the balance");
    // The families' e-mails never say "paid" of a team that owes its balance.
    const families = await t.db("email_outbox").where({ reference: `registration:${reference}` }).andWhere("text_body", "like", "%has registered%");
    expect(families.length).toBe(6);
    for (const family of families) {
      expect(family.text_body).toContain("and the place is booked (the team's balance is its coach's to pay).");
      expect(family.text_body).not.toMatch(/\bis paid\b/);
    }
  });
});
