import type { Knex } from "knex";
import type { Db } from "../../db/knex.ts";
import { toDate, type Row } from "../../db/rows.ts";
import { toText } from "../../shared/toText.ts";
import type { RegistrationStatus } from "../core/states.ts";

/**
 * The balances' slice of the registration tables: a deposit registration's balance, saved card and due date
 * (columns of `registrations` and `events`), and the `balance_charges` claim rows of the job
 * (migrations/20261201000200_balance_charges.ts).
 */
type Conn = Db | Knex.Transaction;

export interface SavedCard {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export interface Balance {
  registrationId: number;
  reference: string;
  eventId: number;
  status: RegistrationStatus;
  amountCents: number;
  paidCents: number;
  depositCents: number | null;
  /** What is still owed: the registration's amount less what was paid. */
  owedCents: number;
  dueAt: Date | null;
  graceDays: number;
  customerId: string | null;
  paymentMethodId: string | null;
  card: SavedCard | null;
}

const BALANCE_COLUMNS = [
  "r.id", "r.reference", "r.event_id", "r.status", "r.amount_cents", "r.amount_paid_cents", "r.deposit_cents", "r.balance_due_at",
  "r.stripe_customer_id", "r.payment_method_id", "r.card_brand", "r.card_last4", "r.card_exp_month", "r.card_exp_year", "e.balance_grace_days",
];

function mapBalance(row: Row): Balance {
  const amountCents = Number(row.amount_cents);
  const paidCents = Number(row.amount_paid_cents ?? 0);
  const last4 = row.card_last4 === null || row.card_last4 === undefined ? null : toText(row.card_last4);
  return {
    registrationId: Number(row.id),
    reference: String(row.reference),
    eventId: Number(row.event_id),
    status: String(row.status) as RegistrationStatus,
    amountCents,
    paidCents,
    depositCents: row.deposit_cents === null || row.deposit_cents === undefined ? null : Number(row.deposit_cents),
    owedCents: Math.max(0, amountCents - paidCents),
    dueAt: toDate(row.balance_due_at),
    graceDays: Number(row.balance_grace_days ?? 0),
    customerId: (row.stripe_customer_id as string | null) ?? null,
    paymentMethodId: (row.payment_method_id as string | null) ?? null,
    card: last4 ? { brand: row.card_brand ? toText(row.card_brand) : "card", last4, expMonth: Number(row.card_exp_month), expYear: Number(row.card_exp_year) } : null,
  };
}

const balances = (conn: Conn) => conn<Row>("registrations as r").join("events as e", "e.id", "r.event_id").select(BALANCE_COLUMNS);

export async function balanceOf(conn: Conn, reference: string): Promise<Balance | undefined> {
  const row = (await balances(conn).where("r.reference", reference).first()) as Row | undefined;
  return row ? mapBalance(row) : undefined;
}

/** Deposit registrations whose balance is due by `now` (the job decides under the row's lock whether an attempt is). */
export async function dueBalances(conn: Conn, now: Date, limit: number): Promise<Balance[]> {
  return (await balances(conn).where("r.status", "deposit_paid").andWhere("r.balance_due_at", "<=", now).orderBy("r.balance_due_at").orderBy("r.id").limit(limit)).map(mapBalance);
}

/** Deposit registrations whose balance falls due after `from` and by `until` (the reminders' window). */
export async function balancesDueBetween(conn: Conn, from: Date, until: Date): Promise<Balance[]> {
  return (await balances(conn).where("r.status", "deposit_paid").andWhere("r.balance_due_at", ">", from).andWhere("r.balance_due_at", "<=", until).orderBy("r.id")).map(mapBalance);
}

/** Balances the grace release looks at: overdue ones, and unpaid ones waiting for their payer (authentication required). */
export async function unpaidPastDue(conn: Conn, now: Date): Promise<Balance[]> {
  return (await balances(conn).whereIn("r.status", ["balance_overdue", "deposit_paid"]).andWhere("r.balance_due_at", "<=", now).orderBy("r.id")).map(mapBalance);
}

/**
 * Balances the job has left undecided `marginMs` after it owed a decision: still `deposit_paid` past their due date
 * with no attempt, an attempt still claimed or waiting to be sent again, one dropped, or a retry overdue. A soft
 * decline waiting for its next day or a payer asked to authenticate are decided (the release takes those at the
 * grace date). The job logs these at error and the operator's list names them.
 */
export async function undecidedPastDue(conn: Conn, now: Date, marginMs: number): Promise<Balance[]> {
  const before = new Date(now.getTime() - marginMs);
  const candidates = (await balances(conn).where("r.status", "deposit_paid").andWhere("r.balance_due_at", "<=", before).orderBy("r.balance_due_at").orderBy("r.id")).map(mapBalance);
  const undecided: Balance[] = [];
  for (const b of candidates) {
    const last = await latestCharge(conn, b.registrationId);
    const waiting = last && ((last.status === "declined" && (last.nextAttemptAt === null || last.nextAttemptAt > before)) || last.status === "authentication_required" || last.status === "succeeded" || ((last.status === "claimed" || last.status === "retry") && last.createdAt > before));
    if (!waiting) undecided.push(b);
  }
  return undecided;
}

/** Every balance still owed (the operator's list): deposit paid or overdue, soonest due first. */
export async function owedBalances(conn: Conn, opts: { dueBy?: Date; overdueOnly?: boolean }): Promise<Balance[]> {
  const q = balances(conn).whereIn("r.status", opts.overdueOnly ? ["balance_overdue"] : ["deposit_paid", "balance_overdue"]);
  if (opts.dueBy) q.andWhere("r.balance_due_at", "<=", opts.dueBy);
  return (await q.orderBy("r.balance_due_at").orderBy("r.id")).map(mapBalance);
}

/** The registration's row locked, the first statement of its transaction; false when it is gone. */
export async function lockRegistration(trx: Knex.Transaction, registrationId: number): Promise<boolean> {
  return (await trx("registrations").where({ id: registrationId }).forUpdate().first("id")) !== undefined;
}

export type ChargeStatus = "claimed" | "retry" | "succeeded" | "authentication_required" | "declined" | "dropped";

export interface BalanceCharge {
  id: number;
  registrationId: number;
  attempt: number;
  idempotencyKey: string;
  amountCents: number;
  status: ChargeStatus;
  claims: number;
  paymentId: number | null;
  declineCode: string | null;
  hardDecline: boolean | null;
  lastError: string | null;
  claimedAt: Date | null;
  finishedAt: Date | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
}

function mapCharge(row: Row): BalanceCharge {
  return {
    id: Number(row.id),
    registrationId: Number(row.registration_id),
    attempt: Number(row.attempt),
    idempotencyKey: String(row.idempotency_key),
    amountCents: Number(row.amount_cents),
    status: String(row.status) as ChargeStatus,
    claims: Number(row.claims),
    paymentId: row.payment_id === null || row.payment_id === undefined ? null : Number(row.payment_id),
    declineCode: (row.decline_code as string | null) ?? null,
    hardDecline: row.hard_decline === null || row.hard_decline === undefined ? null : Boolean(row.hard_decline),
    lastError: (row.last_error as string | null) ?? null,
    claimedAt: toDate(row.claimed_at),
    finishedAt: toDate(row.finished_at),
    nextAttemptAt: toDate(row.next_attempt_at),
    createdAt: toDate(row.created_at)!,
  };
}

/** A registration's attempts, the first first. */
export async function chargesOf(conn: Conn, registrationId: number): Promise<BalanceCharge[]> {
  return (await conn<Row>("balance_charges").where({ registration_id: registrationId }).orderBy("attempt")).map(mapCharge);
}

export async function latestCharge(conn: Conn, registrationId: number): Promise<BalanceCharge | undefined> {
  const row = await conn<Row>("balance_charges").where({ registration_id: registrationId }).orderBy("attempt", "desc").first();
  return row ? mapCharge(row) : undefined;
}

/** Whether the balance job sent this attempt (its key): the saved card was charged, whoever settles the payment first. */
export async function isJobAttempt(conn: Conn, registrationId: number, idempotencyKey: string | null): Promise<boolean> {
  if (!idempotencyKey) return false;
  return !!(await conn("balance_charges").where({ registration_id: registrationId, idempotency_key: idempotencyKey }).first("id"));
}

export async function findCharge(conn: Conn, id: number): Promise<BalanceCharge | undefined> {
  const row = await conn<Row>("balance_charges").where({ id }).first();
  return row ? mapCharge(row) : undefined;
}

/** Attempts to take over: claimed before `staleBefore` (the claimer went silent), or a failed call due again. */
export async function staleCharges(conn: Conn, now: Date, staleBefore: Date, limit: number): Promise<BalanceCharge[]> {
  const rows = await conn<Row>("balance_charges")
    .where((w) => {
      w.where((q) => { q.where("status", "claimed").andWhere("claimed_at", "<", staleBefore); })
        .orWhere((q) => { q.where("status", "retry").andWhere("next_attempt_at", "<=", now); });
    })
    .orderBy("id")
    .limit(limit);
  return rows.map(mapCharge);
}

export async function balanceById(conn: Conn, registrationId: number): Promise<Balance | undefined> {
  const row = (await balances(conn).where("r.id", registrationId).first()) as Row | undefined;
  return row ? mapBalance(row) : undefined;
}

/** The balance payment of a registration that was paid (its id), if any. */
export async function paidBalancePaymentId(conn: Conn, kind: string, reference: string): Promise<number | undefined> {
  const row = await conn<Row>("payments").where({ kind, reference }).whereNotNull("paid_at").orderBy("id").first("id");
  return row ? Number(row.id) : undefined;
}

/** A new attempt claimed (status claimed); throws a unique violation when another instance claimed it first. */
export async function insertClaim(trx: Knex.Transaction, c: { registrationId: number; attempt: number; idempotencyKey: string; amountCents: number }, now: Date): Promise<BalanceCharge> {
  const [id] = await trx("balance_charges").insert({
    registration_id: c.registrationId,
    attempt: c.attempt,
    idempotency_key: c.idempotencyKey,
    amount_cents: c.amountCents,
    status: "claimed",
    claims: 1,
    claimed_at: now,
    created_at: now,
  });
  return (await findCharge(trx, Number(id)))!;
}

/**
 * An attempt taken over: one whose claimer went silent (claimed before `staleBefore`) or whose call failed (retry,
 * due again). One conditional UPDATE that also counts the claim, so two instances never both take it; null when
 * another did. The attempt keeps its idempotency key.
 */
export async function takeOver(conn: Conn, charge: BalanceCharge, now: Date, staleBefore: Date): Promise<BalanceCharge | null> {
  const changed = await conn("balance_charges")
    .where({ id: charge.id, claims: charge.claims })
    .andWhere((w) => {
      w.where((q) => { q.where("status", "claimed").andWhere("claimed_at", "<", staleBefore); })
        .orWhere((q) => { q.where("status", "retry").andWhere("next_attempt_at", "<=", now); });
    })
    .update({ status: "claimed", claims: charge.claims + 1, claimed_at: now });
  return changed === 1 ? { ...charge, status: "claimed", claims: charge.claims + 1, claimedAt: now } : null;
}

/** The claimer writes its attempt's outcome; false when its claim was taken over meanwhile (the taker writes it). */
export async function finishCharge(conn: Conn, charge: BalanceCharge, fields: { status: ChargeStatus; paymentId?: number | null; declineCode?: string | null; hardDecline?: boolean | null; lastError?: string | null; nextAttemptAt?: Date | null }, now: Date): Promise<boolean> {
  const final = fields.status !== "retry";
  const changed = await conn("balance_charges")
    .where({ id: charge.id, status: "claimed", claims: charge.claims })
    .update({
      status: fields.status,
      payment_id: fields.paymentId ?? null,
      decline_code: fields.declineCode ?? null,
      hard_decline: fields.hardDecline ?? null,
      last_error: fields.lastError?.slice(0, 500) ?? null,
      next_attempt_at: fields.nextAttemptAt ?? null,
      finished_at: final ? now : null,
    });
  return changed === 1;
}
