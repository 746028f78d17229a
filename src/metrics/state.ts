import type { Gauge } from "prom-client";
import type { Db } from "../db/knex.ts";
import { toDate, type Row } from "../db/rows.ts";
import { placesLeft } from "../events/repository.ts";
import { retryKey } from "../payments/refundLedger.ts";
import { collectOnScrape, type Metrics } from "./registry.ts";

/** The job tables (src/db/jobQueue.ts) by queue name, with the column that holds each job's state. */
export const JOB_QUEUES = [
  { queue: "email", table: "email_outbox", status: "status" },
  { queue: "refunds", table: "payment_refunds", status: "send_status" },
  { queue: "waiting_list", table: "waiting_list_jobs", status: "status" },
  { queue: "shopify_writebacks", table: "shopify_writebacks", status: "status" },
] as const;

/** What the database holds now, read once per scrape however many gauges ask. */
interface State {
  events: { id: number; capacity: number; taken: number }[];
  waiting: { event: number; status: string; count: number }[];
  payments: { kind: string; status: string; count: number }[];
  refunds: { requested: number; pending: number; failed: number };
  queues: { queue: string; depth: number; oldestSeconds: number; failed: number }[];
}

const num = (v: unknown) => Number(v ?? 0) || 0;

async function readState(db: Db, now: Date): Promise<State> {
  // Events still to come (their last day not over): the few an operator watches on opening day.
  const yesterday = now.getTime() - 86_400_000;
  const eventRows: Row[] = await db("events").select("id", "capacity", "end_date");
  const events = [];
  for (const r of eventRows) {
    const end = toDate(r.end_date);
    if (end && end.getTime() < yesterday) continue;
    const capacity = num(r.capacity);
    events.push({ id: num(r.id), capacity, taken: capacity - (await placesLeft(db, num(r.id), now)) });
  }
  const waitingRows: Row[] = await db("waiting_list_entries").whereIn("status", ["waiting", "offered"]).groupBy("event_id", "status").select("event_id", "status").count({ n: "*" });
  const waiting = waitingRows.map((r) => ({ event: num(r.event_id), status: String(r.status), count: num(r.n) }));
  const paymentRows: Row[] = await db("payments").groupBy("kind", "status").select("kind", "status").count({ n: "*" });
  const payments = paymentRows.map((r) => ({ kind: String(r.kind), status: String(r.status), count: num(r.n) }));
  const refundRows: Row[] = await db("payment_refunds").whereIn("status", ["requested", "pending", "failed"]).select("id", "status");
  const retryRows: Row[] = await db("payment_refunds").where("request_key", "like", "retry:refund:%").select("request_key");
  const retried = new Set(retryRows.map((r) => String(r.request_key)));
  const refunds = { requested: 0, pending: 0, failed: 0 };
  for (const r of refundRows) {
    const status = String(r.status) as keyof typeof refunds;
    // A failed refund asked for again leaves the count, as it leaves `npm run payments -- refunds failed`.
    if (status === "failed" && retried.has(retryKey(num(r.id)))) continue;
    refunds[status] += 1;
  }
  const queues = [];
  for (const { queue, table, status } of JOB_QUEUES) {
    const [open]: Row[] = await db(table).whereIn(status, ["pending", "sending"]).count({ n: "*" }).min({ oldest: "created_at" });
    const [failed]: Row[] = await db(table).where(status, "failed").count({ n: "*" });
    const oldest = toDate(open?.oldest);
    queues.push({ queue, depth: num(open?.n), oldestSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0, failed: num(failed?.n) });
  }
  return { events, waiting, payments, refunds, queues };
}

/**
 * The gauges of what the database holds, set at each scrape. A database that does not answer leaves them out of
 * that scrape (and counts ironside_metrics_state_read_failures_total): the process's own figures still answer.
 */
export function watchState(db: Db, metrics: Metrics, now: () => Date): void {
  // The gauges of one scrape ask at once (prom-client collects them together): they share one reading in flight.
  let reading: Promise<State | undefined> | undefined;
  const state = () =>
    (reading ??= readState(db, now())
      .catch(() => {
        metrics.database.stateReadFailures.inc();
        return undefined;
      })
      .finally(() => {
        reading = undefined;
      }));
  const fill = (gauge: Gauge, write: (s: State, g: Gauge) => void) => {
    collectOnScrape(gauge, async (g) => {
      const s = await state();
      g.reset();
      if (s) write(s, g);
    });
  };
  const { holds, money, jobs } = metrics;
  fill(holds.placesTaken, (s, g) => s.events.forEach((e) => g.set({ event: String(e.id) }, e.taken)));
  fill(holds.capacity, (s, g) => s.events.forEach((e) => g.set({ event: String(e.id) }, e.capacity)));
  fill(holds.waitingEntries, (s, g) => {
    for (const e of s.events) g.set({ event: String(e.id) }, 0);
    for (const w of s.waiting) if (w.status === "waiting") g.set({ event: String(w.event) }, w.count);
  });
  fill(holds.openOffers, (s, g) => {
    for (const e of s.events) g.set({ event: String(e.id) }, 0);
    for (const w of s.waiting) if (w.status === "offered") g.set({ event: String(w.event) }, w.count);
  });
  fill(money.payments, (s, g) => s.payments.forEach((p) => g.set({ kind: p.kind, status: p.status }, p.count)));
  fill(money.needsReview, (s, g) => g.set(s.payments.filter((p) => p.status === "needs_review").reduce((n, p) => n + p.count, 0)));
  fill(money.refunds, (s, g) => Object.entries(s.refunds).forEach(([status, n]) => g.set({ status }, n)));
  fill(jobs.queueDepth, (s, g) => s.queues.forEach((q) => g.set({ queue: q.queue }, q.depth)));
  fill(jobs.queueOldest, (s, g) => s.queues.forEach((q) => g.set({ queue: q.queue }, q.oldestSeconds)));
  fill(jobs.queueFailed, (s, g) => s.queues.forEach((q) => g.set({ queue: q.queue }, q.failed)));
}
