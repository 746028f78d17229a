// `npm run payments -- review list|accept|refund ...`: the payments that wait for an operator (needs_review), and
// the operator's decision on one; `refunds failed`: the refunds Stripe refused or reversed (src/cli/operatorArgs.ts
// says what each takes).
import type { Db } from "../db/knex.ts";
import { maskEmail } from "../logger.ts";
import { formatPrice } from "../shared/money.ts";
import { ReviewNotAcceptedError, UnknownPaymentError } from "../payments/core.ts";
import { findById, type PaymentRow } from "../payments/repository.ts";
import { parsePaymentsArgs, PAYMENTS_USAGE, type PaymentsCommand } from "./operatorArgs.ts";
import { isMain, OperatorError, runOperatorCommand, type OperatorContext } from "./operatorContext.ts";
import { refundPayment, retryKey } from "./refund.ts";
import type { RefundRow } from "../payments/refundLedger.ts";
import type { Row } from "../db/rows.ts";
import { toText } from "../shared/toText.ts";
import { chargesOf, owedBalances, undecidedPastDue, type Balance, type BalanceCharge } from "../registrations/balances/repository.ts";
import { cardText, graceEndsAt, MAX_ATTEMPTS } from "../registrations/balances/schedule.ts";
import { UNDECIDED_AFTER_MS } from "../registrations/balances/job.ts";

/** What the paid-for row says now: the amount it asks for and who pays (null when the row is gone). */
async function paidFor(db: Db, payment: PaymentRow): Promise<{ dueCents: number; email: string; status: string } | null> {
  if (payment.kind === "registration") {
    const r = await db<Row>("registrations").where({ reference: payment.reference }).first("amount_cents", "contact_email", "status");
    return r ? { dueCents: Number(r.amount_cents), email: String(r.contact_email), status: String(r.status) } : null;
  }
  if (payment.kind === "order") {
    const o = await db<Row>("orders").where({ reference: payment.reference }).first("total_cents", "customer_email", "status");
    return o ? { dueCents: Number(o.total_cents), email: String(o.customer_email), status: String(o.status) } : null;
  }
  return null;
}

/** 45 min, 5 h, 3 d: how long the payment has waited. */
export function ageText(since: Date, now: Date): string {
  const minutes = Math.max(0, Math.floor((now.getTime() - since.getTime()) / 60_000));
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows].map((r) => r.map((v, i) => v.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n");
}

export async function listReview(ctx: OperatorContext, now: Date): Promise<string> {
  const payments = await ctx.paymentCore.needsReview();
  if (payments.length === 0) return "No payment waits for review.";
  const rows = await Promise.all(
    payments.map(async (p) => {
      const row = await paidFor(ctx.db, p);
      return [
        String(p.id),
        p.kind,
        p.reference,
        formatPrice(p.amountCents),
        row ? formatPrice(row.dueCents) : "-",
        row ? `${p.kind} ${row.status}` : `${p.kind} gone`,
        ageText(p.createdAt, now),
        row ? maskEmail(row.email) : "-",
        p.reviewReason ?? "",
      ];
    }),
  );
  const head = ["id", "kind", "reference", "payment", "due", "now", "age", "payer", "reason"];
  return `${table(head, rows)}\n${payments.length} payment(s) in review. Settle one: review accept ID, or review refund ID --reason "..."`;
}

export async function listFailedRefunds(ctx: OperatorContext, now: Date): Promise<string> {
  // A failed refund asked for again (npm run refund) leaves the list; if that retry fails too, the retry is listed.
  const owed: RefundRow[] = [];
  for (const r of await ctx.paymentCore.failedRefunds()) if (!(await ctx.paymentCore.refundsOf(r.paymentId)).some((x) => x.requestKey === retryKey(r.id))) owed.push(r);
  if (owed.length === 0) return "No refund has failed.";
  const rows = await Promise.all(
    owed.map(async (r) => {
      const payment = await findById(ctx.db, r.paymentId);
      const row = payment ? await paidFor(ctx.db, payment) : null;
      return [String(r.id), String(r.paymentId), payment?.kind ?? "-", payment?.reference ?? "-", formatPrice(r.amountCents), `${ageText(r.updatedAt, now)} ago`, row ? maskEmail(row.email) : "-", r.failureReason ?? ""];
    }),
  );
  const head = ["refund", "payment", "kind", "reference", "amount", "failed", "payer", "reason"];
  return `${table(head, rows)}\n${owed.length} refund(s) failed: the money is still with the shop. Send each again with npm run refund -- KIND REFERENCE --reason "..." (without --amount: the failed amount, once).`;
}

const utcDay = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : "-");

/** The last attempt as the operator reads it: "declined insufficient_funds (hard)", "authentication required", "in flight". */
function outcomeText(c: BalanceCharge | undefined): string {
  if (!c) return "not tried yet";
  if (c.status === "declined") return `declined ${c.declineCode ?? ""}${c.hardDecline ? " (hard)" : ""}`.trim();
  if (c.status === "authentication_required") return "authentication required: link e-mailed";
  if (c.status === "claimed" || c.status === "retry") return "being charged";
  return c.status;
}

/**
 * `balances [--due-within DAYS] [--overdue]`: the balances still owed, soonest due first, with the job's attempts;
 * an overdue one (the job gave up) keeps its places until its grace date, then goes to the waiting list.
 */
export async function listBalances(ctx: OperatorContext, now: Date, opts: { dueWithinDays?: number; overdueOnly: boolean }): Promise<string> {
  const dueBy = opts.dueWithinDays === undefined ? undefined : new Date(now.getTime() + opts.dueWithinDays * 86_400_000);
  const balances: Balance[] = await owedBalances(ctx.db, { dueBy, overdueOnly: opts.overdueOnly });
  if (balances.length === 0) return opts.overdueOnly ? "No balance is overdue." : "No balance is owed.";
  const titles = new Map<number, string>();
  const rows = await Promise.all(
    balances.map(async (b) => {
      const charges = await chargesOf(ctx.db, b.registrationId);
      const last = charges[charges.length - 1];
      if (!titles.has(b.eventId)) titles.set(b.eventId, toText((await ctx.db<Row>("events").where({ id: b.eventId }).first("title"))?.title ?? b.eventId));
      const payer = await ctx.db<Row>("registrations").where({ id: b.registrationId }).first("contact_email", "guardian_email");
      const next = last?.status === "declined" ? last.nextAttemptAt : last ? null : b.dueAt;
      return [
        b.reference,
        titles.get(b.eventId)!,
        b.status,
        formatPrice(b.owedCents),
        utcDay(b.dueAt),
        b.dueAt ? utcDay(graceEndsAt(b.dueAt, b.graceDays)) : "-",
        `${charges.length}/${MAX_ATTEMPTS}`,
        outcomeText(last),
        b.status === "deposit_paid" ? utcDay(next) : "-",
        b.card ? cardText(b.card) : "no card saved",
        payer ? maskEmail(toText(payer.guardian_email ?? payer.contact_email)) : "-",
      ];
    }),
  );
  const head = ["reference", "event", "state", "owed", "due", "grace until", "attempts", "last attempt", "next attempt", "card", "payer"];
  const owed = balances.reduce((sum, b) => sum + b.owedCents, 0);
  const overdue = balances.filter((b) => b.status === "balance_overdue").length;
  const undecided = await undecidedPastDue(ctx.db, now, UNDECIDED_AFTER_MS);
  const warning = undecided.length > 0 ? `\n${undecided.length} balance(s) past their due date, neither paid nor overdue: ${undecided.map((b) => b.reference).join(", ")} (the job logs why at error).` : "";
  return `${table(head, rows)}\n${balances.length} balance(s), ${formatPrice(owed)} owed in all; ${overdue} overdue (dates UTC). An overdue balance keeps its places until its grace date, then they go to the waiting list.${warning}`;
}

/** What an accept would keep against what the paid-for row asks for now, when they differ (a code applied meanwhile). */
async function differenceOf(ctx: OperatorContext, paymentId: number): Promise<string | null> {
  const payment = await findById(ctx.db, paymentId);
  // Charged another amount than the row says: the core refuses the accept itself (only a refund settles it).
  if (!payment || payment.status !== "needs_review" || payment.chargedCents !== payment.amountCents) return null;
  const row = await paidFor(ctx.db, payment);
  if (!row || row.dueCents === payment.chargedCents) return null;
  const gap = payment.chargedCents - row.dueCents;
  return `Payment ${payment.id} took ${formatPrice(payment.chargedCents)}; ${payment.kind} ${payment.reference} asks for ${formatPrice(row.dueCents)} now: ${formatPrice(Math.abs(gap))} ${gap > 0 ? "more" : "less"} than it asks.`;
}

export async function runPaymentsCommand(ctx: OperatorContext, cmd: PaymentsCommand, out: (line: string) => void = console.log): Promise<number> {
  switch (cmd.command) {
    case "list":
      out(await listReview(ctx, ctx.now()));
      return 0;
    case "failedRefunds":
      out(await listFailedRefunds(ctx, ctx.now()));
      return 0;
    case "balances":
      out(await listBalances(ctx, ctx.now(), cmd));
      return 0;
    case "accept":
      try {
        const difference = await differenceOf(ctx, cmd.paymentId);
        if (difference && !cmd.acceptDifference) throw new OperatorError(`${difference} Keep it as it is with review accept ${cmd.paymentId} --accept-difference, or refund it with review refund ${cmd.paymentId} --reason "...": nothing changed.`);
        const payment = await ctx.paymentCore.acceptReview(cmd.paymentId);
        if (difference) out(`${difference} Kept as it is (--accept-difference).`);
        out(`Accepted payment ${payment.id}: ${formatPrice(payment.amountCents)} kept; ${payment.kind} ${payment.reference} is paid and its confirmation e-mail is queued.`);
        return 0;
      } catch (err) {
        if (err instanceof ReviewNotAcceptedError || err instanceof UnknownPaymentError) throw new OperatorError(err.message);
        throw err;
      }
    case "refund": {
      const payment = await ctx.paymentCore.needsReview().then((all) => all.find((p) => p.id === cmd.paymentId));
      if (!payment) throw new OperatorError(`Payment ${cmd.paymentId} is not in review (see review list); refund a paid one with npm run refund.`);
      return refundPayment(ctx, payment, { reason: cmd.reason, waitSeconds: cmd.waitSeconds, onlyIf: "needs_review" }, out);
    }
  }
}

if (isMain(import.meta.url)) process.exitCode = await runOperatorCommand(process.argv.slice(2), parsePaymentsArgs, PAYMENTS_USAGE, (ctx, cmd) => runPaymentsCommand(ctx, cmd));
