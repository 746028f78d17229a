import type { Knex } from "knex";
import { DomainError } from "../errors.ts";
import { metricsOf } from "./registry.ts";

/**
 * The one-line calls the features make to count what they do. Each finds its app's metrics from the connection it
 * holds and does nothing without them (an operator's command), so a feature never depends on metrics being there.
 */

type Conn = Knex | Knex.Transaction;

export type HoldOutcome = "held" | "sold_out" | "refused";

/** Hold outcomes: answered with places (or the same paid form again), sold out, or refused for any other reason. */
export function holdOutcomeOf(err: unknown): HoldOutcome {
  return err instanceof DomainError && err.reason === "sold_out" ? "sold_out" : "refused";
}

/** Counts and times a hold at the route: `hold` is the use case's whole answer. */
export async function measureHold<T>(conn: Conn, hold: () => Promise<T>): Promise<T> {
  const metrics = metricsOf(conn);
  const end = metrics?.holds.duration.startTimer();
  let outcome: HoldOutcome = "held";
  try {
    return await hold();
  } catch (err) {
    outcome = holdOutcomeOf(err);
    throw err;
  } finally {
    end?.({ outcome });
    metrics?.holds.answered.inc({ outcome });
  }
}

/**
 * A payment row moved (src/payments/repository.ts transition): counted once its statement changed the row (a
 * transaction rolled back afterwards still counts: rare, and never a payment's money). By kind: ironside_payments.
 */
export function countPaymentTransition(conn: Conn, transition: string, to: string): void {
  metricsOf(conn)?.money.transitions.inc({ transition, to });
}

export type WebhookResult = "received" | "failed" | "rejected";

/** Stripe's event types are a fixed list; a rejected (unsigned) body has no type we believe. */
export function countWebhook(conn: Conn, type: string, result: WebhookResult): void {
  metricsOf(conn)?.money.webhooks.inc({ type: result === "rejected" ? "unverified" : type.slice(0, 64), result });
}

export function countBalanceCharge(conn: Conn, outcome: string): void {
  metricsOf(conn)?.money.balanceCharges.inc({ outcome });
}

/**
 * Runs a periodic job and records it (label `task`: Prometheus keeps `job` for the scrape job): its runs by result and, when it ran to its end, the time (this instance's
 * gauge: every instance runs every job, and the alert looks for the newest run of all).
 */
export function recordedJob<T>(conn: Conn, task: string, run: () => Promise<T>): () => Promise<T> {
  return async () => {
    const metrics = metricsOf(conn);
    try {
      const result = await run();
      metrics?.jobs.runs.inc({ task, result: "ok" });
      metrics?.jobs.lastSuccess.set({ task }, Date.now() / 1000);
      return result;
    } catch (err) {
      metrics?.jobs.runs.inc({ task, result: "failed" });
      throw err;
    }
  };
}
