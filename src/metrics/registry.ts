import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Knex } from "knex";

/**
 * Every metric an app instance exposes on /metrics (docs/operators.md, Metrics, says what each means). One registry
 * per app: two instances (or two apps in one test process) never mix their figures. The counters and histograms are
 * moved by the code that sees the fact (hooks.ts, http.ts, database.ts); the gauges of what the database holds now
 * (places, queues, payments in review) are read when Prometheus scrapes (state.ts).
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  const on = { registers: [registry] };
  const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, ...on });

  return {
    registry,
    http: {
      duration: new Histogram({
        name: "ironside_http_request_duration_seconds",
        help: "Requests answered, by route pattern (never the raw path), method and status class",
        labelNames: ["route", "method", "status_class"],
        buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        ...on,
      }),
      inFlight: gauge("ironside_http_requests_in_flight", "Requests being answered now"),
    },
    holds: {
      answered: new Counter({ name: "ironside_holds_total", help: "Registration holds answered, by outcome: held, sold_out, refused", labelNames: ["outcome"], ...on }),
      duration: new Histogram({
        name: "ironside_hold_duration_seconds",
        help: "Time to answer a hold (the places decided and the PaymentIntent made), by outcome",
        labelNames: ["outcome"],
        buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20],
        ...on,
      }),
      placesTaken: gauge("ironside_event_places_taken", "Places paid for or held, per event still to come", ["event"]),
      capacity: gauge("ironside_event_capacity", "Places an event has, per event still to come", ["event"]),
      waitingEntries: gauge("ironside_waiting_list_entries", "Families and teams waiting in an event's line", ["event"]),
      openOffers: gauge("ironside_waiting_list_open_offers", "Waiting-list offers sent and not yet taken up, declined or expired", ["event"]),
    },
    money: {
      transitions: new Counter({
        name: "ironside_payment_transitions_total",
        help: "Payments moved from one state to another, by transition (src/payments/transitions.ts) and the state reached",
        labelNames: ["transition", "to"],
        ...on,
      }),
      payments: gauge("ironside_payments", "Payments in each state now, by kind", ["kind", "status"]),
      needsReview: gauge("ironside_payments_needs_review", "Payments waiting for an operator (needs_review)"),
      refunds: gauge("ironside_refunds", "Refunds requested, pending at Stripe or failed now (the money still with the shop)", ["status"]),
      webhooks: new Counter({ name: "ironside_webhooks_total", help: "Stripe webhooks by event type and result: received, failed, rejected (bad signature)", labelNames: ["type", "result"], ...on }),
      reconciliationSettled: new Counter({ name: "ironside_reconciliation_settled_total", help: "Open payments the reconciliation settled by asking Stripe", ...on }),
      balanceCharges: new Counter({
        name: "ironside_balance_charges_total",
        help: "Balance charges made by the balance job, by outcome (succeeded, declined, authentication_required, processing, not_kept, no_answer)",
        labelNames: ["outcome"],
        ...on,
      }),
    },
    jobs: {
      runs: new Counter({ name: "ironside_job_runs_total", help: "Runs of each periodic job (task), by result (ok, failed)", labelNames: ["task", "result"], ...on }),
      lastSuccess: gauge("ironside_job_last_success_timestamp_seconds", "When each periodic job (task) last ran to its end on this instance (Unix time)", ["task"]),
      queueDepth: gauge("ironside_job_queue_depth", "Jobs waiting to be done or being done, per queue (email is the e-mail outbox)", ["queue"]),
      queueOldest: gauge("ironside_job_queue_oldest_age_seconds", "Age of the oldest job waiting or being done, per queue; 0 when empty", ["queue"]),
      queueFailed: gauge("ironside_job_queue_failed", "Jobs that gave up after their attempts, per queue (an operator must act)", ["queue"]),
    },
    database: {
      poolSize: gauge("ironside_db_pool_connections", "Connections open in the database pool"),
      poolUsed: gauge("ironside_db_pool_connections_in_use", "Connections of the pool lent to a query or transaction"),
      poolWaiting: gauge("ironside_db_pool_waiting", "Queries and transactions waiting for a connection of the pool"),
      poolMax: gauge("ironside_db_pool_max", "Connections the pool may open at most"),
      queryDuration: new Histogram({
        name: "ironside_db_query_duration_seconds",
        help: "Database statements, by kind (select, insert, update, delete, other) and result (ok, error)",
        labelNames: ["statement", "result"],
        buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
        ...on,
      }),
      stateReadFailures: new Counter({ name: "ironside_metrics_state_read_failures_total", help: "Scrapes whose reading of the database's state (places, queues, payments) failed", ...on }),
    },
    redis: {
      commandErrors: new Counter({ name: "ironside_redis_command_errors_total", help: "Redis commands that failed or got no answer in time", ...on }),
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Each app's metrics by its knex's configuration object, which knex hands on to the client of each of its
 * transactions: code deep in a use case finds them from the connection it holds.
 */
const byConfig = new WeakMap<object, Metrics>();
const configOf = (conn: Knex | Knex.Transaction) => (conn.client as { config: object }).config;

export function attachMetrics(db: Knex, metrics: Metrics): void {
  byConfig.set(configOf(db), metrics);
}

/** The metrics of the app using this connection (a knex or a transaction of it); undefined for an operator's command. */
export function metricsOf(conn: Knex | Knex.Transaction): Metrics | undefined {
  return byConfig.get(configOf(conn));
}

/** Sets what a gauge reads when Prometheus scrapes (prom-client calls a gauge's `collect` before each read). */
export function collectOnScrape(gauge: Gauge, collect: (gauge: Gauge) => void | Promise<void>): void {
  (gauge as unknown as { collect: (this: Gauge) => void | Promise<void> }).collect = function () {
    return collect(this);
  };
}
