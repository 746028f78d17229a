/**
 * The end state of `npm run bench:rush`, read from the database after the run and compared with what the fake
 * Stripe charged (the families kept its confirm answers). Every broken rule is one problem: none is exact.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type mysql from "mysql2/promise";
import { discountAmount } from "../../src/shared/discounts/rules.ts";
import { toText } from "../../src/shared/toText.ts";

export interface Charge {
  reference: string;
  intentId: string;
  amountCents: number;
}

/** The rules of an exact end state, as the report names them. */
export const RULES = {
  capacity: "places paid + held above capacity",
  teamPlaces: "team paid for other places than its athletes",
  package: "paid package unknown, or its days or places not the package's",
  amount: "amount paid is not the price (less its code)",
  codeUse: "paid while its code's use is not redeemed",
  payment: "paid without exactly one paid payment of that amount",
  charged: "paid another amount than Stripe charged",
  lost: "charged by Stripe, neither registered nor refunded",
  count: "count of places taken differs from the rows (npm run capacity -- check)",
} as const;

export interface Problem {
  rule: keyof typeof RULES;
  detail: string;
}

export interface EventState {
  id: number;
  title: string;
  capacity: number;
  paidPlaces: number;
  heldPlaces: number;
  /** Athlete rows of the paid and held registrations: the places the roster shows. */
  athleteRows: number;
}

export interface EndState {
  events: EventState[];
  registrationsByStatus: Record<string, number>;
  paymentsByStatus: Record<string, number>;
  paid: number;
  paidWithCode: number;
  charges: number;
  chargedCents: number;
  paidCents: number;
  problems: Problem[];
}

type Row = Record<string, unknown>;
const num = (v: unknown) => Number(v);

async function rows(conn: mysql.Connection, sql: string, params: unknown[] = []): Promise<Row[]> {
  const [result] = await conn.query(sql, params);
  return result as Row[];
}

function countBy(list: Row[], key: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of list) out[String(r[key])] = (out[String(r[key])] ?? 0) + 1;
  return out;
}

/** Payments of charges still being settled (the browser's return or the webhook under way). */
export async function unsettledCharges(conn: mysql.Connection, charges: Charge[]): Promise<number> {
  if (charges.length === 0) return 0;
  const found = await rows(conn, "select provider_payment_id, status from payments where provider_payment_id in (?)", [charges.map((c) => c.intentId)]);
  const status = new Map(found.map((r) => [String(r.provider_payment_id), String(r.status)]));
  return charges.filter((c) => ["pending", "failed", undefined].includes(status.get(c.intentId))).length;
}

export async function readEndState(conn: mysql.Connection, eventIds: number[], charges: Charge[], now: Date): Promise<EndState> {
  const problems: Problem[] = [];
  const problem = (rule: Problem["rule"], detail: string) => problems.push({ rule, detail });
  const events = await rows(conn, "select id, title, capacity, team_price_cents from events where id in (?) order by id", [eventIds]);
  const packages = await rows(conn, "select event_id, code, price_cents, day_count from event_packages where event_id in (?)", [eventIds]);
  const registrations = await rows(
    conn,
    `select r.id, r.reference, r.event_id, r.kind, r.status, r.places, r.package_code, r.list_price_cents, r.amount_cents,
            r.amount_paid_cents, r.reserved_until,
            (select count(*) from registration_athletes a where a.registration_id = r.id) as athletes,
            (select count(*) from registration_days d where d.registration_id = r.id) as days
       from registrations r where r.event_id in (?)`,
    [eventIds],
  );
  const redemptions = await rows(
    conn,
    `select dr.registration_id, dr.status, dr.amount_off_cents, c.discount_type, c.value
       from discount_redemptions dr join discount_codes c on c.id = dr.discount_code_id`,
  );
  const payments = await rows(conn, "select reference, provider_payment_id, status, amount_cents from payments where kind = 'registration'");

  const isHeld = (r: Row) => r.status === "pending_payment" && r.reserved_until instanceof Date && r.reserved_until.getTime() > now.getTime();
  const eventStates: EventState[] = events.map((e) => {
    const mine = registrations.filter((r) => num(r.event_id) === num(e.id));
    // A payment in review keeps its places until an operator decides (src/registrations/core/states.ts).
    const taking = mine.filter((r) => r.status === "paid" || r.status === "needs_review" || isHeld(r));
    const state: EventState = {
      id: num(e.id),
      title: String(e.title),
      capacity: num(e.capacity),
      paidPlaces: mine.filter((r) => r.status === "paid" || r.status === "needs_review").reduce((s, r) => s + num(r.places), 0),
      heldPlaces: mine.filter(isHeld).reduce((s, r) => s + num(r.places), 0),
      athleteRows: taking.reduce((s, r) => s + num(r.athletes), 0),
    };
    if (state.paidPlaces + state.heldPlaces > state.capacity) problem("capacity", `event ${state.id}: ${state.paidPlaces} paid + ${state.heldPlaces} held places > capacity ${state.capacity}`);
    if (state.athleteRows > state.capacity) problem("capacity", `event ${state.id}: ${state.athleteRows} athletes paid or held > capacity ${state.capacity}`);
    return state;
  });

  const redemptionOf = new Map(redemptions.map((d) => [num(d.registration_id), d]));
  const paymentsOf = new Map<string, Row[]>();
  for (const p of payments) paymentsOf.set(String(p.reference), [...(paymentsOf.get(String(p.reference)) ?? []), p]);
  const chargedFor = new Map<string, number>();
  for (const c of charges) chargedFor.set(c.reference, (chargedFor.get(c.reference) ?? 0) + c.amountCents);

  let paidWithCode = 0;
  let paidCents = 0;
  const paid = registrations.filter((r) => r.status === "paid");
  for (const r of paid) {
    const ref = String(r.reference);
    const event = events.find((e) => num(e.id) === num(r.event_id))!;
    let listCents: number;
    if (r.kind === "team") {
      listCents = num(event.team_price_cents) * num(r.athletes);
      if (num(r.places) !== num(r.athletes)) problem("teamPlaces", `${ref}: team paid for ${String(r.places)} places with ${String(r.athletes)} athletes`);
    } else {
      const pkg = packages.find((p) => num(p.event_id) === num(r.event_id) && p.code === r.package_code);
      if (!pkg) {
        problem("package", `${ref}: paid for unknown package ${String(r.package_code)}`);
        continue;
      }
      listCents = num(pkg.price_cents);
      if (num(r.days) !== num(pkg.day_count)) problem("package", `${ref}: package ${String(r.package_code)} (${String(pkg.day_count)} days) paid with ${String(r.days)} days`);
      if (num(r.places) !== 1 || num(r.athletes) !== 1) problem("package", `${ref}: individual registration with ${String(r.places)} places and ${String(r.athletes)} athletes`);
    }
    const redemption = redemptionOf.get(num(r.id));
    const code = redemption && redemption.status === "redeemed" ? redemption : undefined;
    if (redemption && !code) problem("codeUse", `${ref}: paid with its code's use ${String(redemption.status)}`);
    if (code) paidWithCode += 1;
    const due = code ? discountAmount(listCents, { type: code.discount_type as "percent" | "fixed", value: num(code.value) }).finalCents : listCents;
    const amountPaid = num(r.amount_paid_cents);
    paidCents += amountPaid;
    if (amountPaid !== due) problem("amount", `${ref}: amount paid ${amountPaid} ≠ its price ${due} (list ${listCents}${code ? ", less its code" : ""})`);
    const settled = (paymentsOf.get(ref) ?? []).filter((p) => p.status === "paid");
    if (settled.length !== 1) problem("payment", `${ref}: paid, with ${settled.length} paid payments`);
    else if (num(settled[0]!.amount_cents) !== amountPaid) problem("payment", `${ref}: amount paid ${amountPaid} ≠ its payment's ${String(settled[0]!.amount_cents)}`);
    const charged = chargedFor.get(ref);
    if (charged !== undefined && charged !== amountPaid) problem("charged", `${ref}: amount paid ${amountPaid} ≠ ${charged} charged by Stripe`);
  }

  // Every charge ends as a paid registration or a refund: never money taken for nothing.
  const refunded = new Set(payments.filter((p) => p.status === "refunded" || p.status === "refund_pending").map((p) => String(p.provider_payment_id)));
  const paidRefs = new Set(paid.map((r) => String(r.reference)));
  for (const c of charges) {
    if (!paidRefs.has(c.reference) && !refunded.has(c.intentId)) {
      const status = payments.find((p) => p.provider_payment_id === c.intentId)?.status;
      problem("lost", `${c.reference}: charged ${c.amountCents} (${c.intentId}), not registered nor refunded (payment ${toText(status ?? "missing")})`);
    }
  }
  return {
    events: eventStates,
    registrationsByStatus: countBy(registrations, "status"),
    paymentsByStatus: countBy(payments, "status"),
    paid: paid.length,
    paidWithCode,
    charges: charges.length,
    chargedCents: charges.reduce((s, c) => s + c.amountCents, 0),
    paidCents,
    problems,
  };
}

/**
 * The operators' check of every event's count of places against its rows (`npm run capacity -- check`), run as an
 * operator runs it on the run's database: each line it prints for an event is one problem.
 */
export async function countCheck(databaseUrl: string): Promise<Problem[]> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ["src/cli/run.mjs", "capacity", "check"], { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl } }, (err, out, errOut) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: String(out), stderr: String(errOut) }),
    );
  });
  if (code === 0) return [];
  const lines = stdout.split("\n").filter((l) => l.startsWith("Event "));
  return lines.length ? lines.map((detail) => ({ rule: "count" as const, detail })) : [{ rule: "count", detail: `the check did not run: ${stderr.trim() || stdout.trim()}` }];
}
