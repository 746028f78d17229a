import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetricsServer, type Metrics } from "../../src/metrics/index.ts";
import { ATHLETE, changesApp, paidChangesKit, until } from "./registrations/changes/helpers.ts";
import { visitor } from "../support/http.ts";

/**
 * GET /metrics (src/metrics/) on the metrics port, as server.ts serves it: after a hold, a payment, a refund and the
 * periodic jobs every named metric is there with the figures those made; no label holds a link's token.
 */
const t = changesApp();
const kit = paidChangesKit(t);
let metricsServer: Server;
let metricsUrl: string;

beforeAll(async () => {
  metricsServer = createMetricsServer((t.app.locals.metrics as Metrics).registry);
  metricsServer.listen(0, "127.0.0.1");
  await new Promise((r) => metricsServer.once("listening", r));
  metricsUrl = `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}/metrics`;
});
afterAll(async () => {
  await new Promise((r) => metricsServer?.close(r));
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const res = await fetch(metricsUrl);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  const text = await res.text();
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { text, samples };
}

const valueOf = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);

/** Every metric docs/operators.md names, by its family name (a histogram's _bucket, _sum and _count lines follow it). */
const NAMED = [
  "ironside_http_request_duration_seconds",
  "ironside_http_requests_in_flight",
  "nodejs_eventloop_lag_seconds",
  "process_cpu_seconds_total",
  "process_resident_memory_bytes",
  "nodejs_gc_duration_seconds",
  "ironside_holds_total",
  "ironside_hold_duration_seconds",
  "ironside_event_places_taken",
  "ironside_event_capacity",
  "ironside_waiting_list_entries",
  "ironside_waiting_list_open_offers",
  "ironside_payment_transitions_total",
  "ironside_payments",
  "ironside_payments_needs_review",
  "ironside_refunds",
  "ironside_webhooks_total",
  "ironside_reconciliation_settled_total",
  "ironside_balance_charges_total",
  "ironside_job_runs_total",
  "ironside_job_last_success_timestamp_seconds",
  "ironside_job_queue_depth",
  "ironside_job_queue_oldest_age_seconds",
  "ironside_job_queue_failed",
  "ironside_db_pool_connections",
  "ironside_db_pool_connections_in_use",
  "ironside_db_pool_waiting",
  "ironside_db_pool_max",
  "ironside_db_query_duration_seconds",
  "ironside_redis_command_errors_total",
];

describe("GET /metrics", () => {
  it("answers every named metric after a hold, a payment, a refund and a run of each periodic job", async () => {
    const before = (await scrape()).samples;
    const { reference, path } = await kit.paidRegistration();
    // The registration cancelled in full: a refund request that the refund job sends, and Stripe confirms.
    const b = await kit.browser(path);
    const version = /name="version" value="(\d+)"/.exec((await b.get(`${path}/cancel`)).text)![1]!;
    expect((await b.post(`${path}/cancel`, { version, scope: "all" })).status).toBe(303);
    await until(async () => (await kit.row(reference)).status === "refunded");
    for (const job of ["sweepExpiredHolds", "reconcilePayments", "runBalanceJob", "sendFreezeReminders", "askForOfferRounds"]) {
      await (t.app.locals[job] as () => Promise<unknown>)();
    }

    const { text, samples } = await scrape();
    for (const name of NAMED) expect(text, name).toMatch(new RegExp(`^# TYPE ${name} `, "m"));
    const grew = (name: string, labels: Record<string, string>) => valueOf(samples, name, labels) - valueOf(before, name, labels);
    expect(grew("ironside_holds_total", { outcome: "held" })).toBe(1);
    expect(grew("ironside_hold_duration_seconds_count", { outcome: "held" })).toBe(1);
    expect(grew("ironside_payment_transitions_total", { transition: "pay", to: "paid" })).toBe(1);
    expect(grew("ironside_payment_transitions_total", { transition: "refunded", to: "refunded" })).toBe(1);
    expect(valueOf(samples, "ironside_payments", { kind: "registration", status: "refunded" })).toBeGreaterThanOrEqual(1);
    expect(grew("ironside_webhooks_total", { type: "payment_intent.succeeded", result: "received" })).toBeGreaterThanOrEqual(1);
    for (const job of ["sweep", "reconciliation", "balance", "freeze_reminders", "waiting_list_rounds"]) {
      expect(grew("ironside_job_runs_total", { task: job, result: "ok" }), job).toBe(1);
      expect(valueOf(samples, "ironside_job_last_success_timestamp_seconds", { task: job }) * 1000, job).toBeGreaterThan(Date.now() - 60_000);
    }
    // The state read from the database: event 2's places and capacity, the queues.
    const row = await t.db("events").where({ id: 2 }).first();
    expect(valueOf(samples, "ironside_event_capacity", { event: "2" })).toBe(Number(row.capacity));
    expect(samples.some((s) => s.name === "ironside_job_queue_depth" && s.labels.queue === "email")).toBe(true);
    expect(valueOf(samples, "ironside_db_pool_max")).toBeGreaterThanOrEqual(1);
    expect(grew("ironside_db_query_duration_seconds_count", { statement: "update", result: "ok" })).toBeGreaterThan(0);
    // The request metrics name the routes by their patterns.
    expect(grew("ironside_http_request_duration_seconds_count", { route: "/my-registration/:token/cancel", method: "POST", status_class: "3xx" })).toBe(1);
    expect(grew("ironside_http_request_duration_seconds_count", { route: "/api/events/:id/create-payment-intent", method: "POST", status_class: "2xx" })).toBe(1);
  });

  it("counts a hold refused for want of places as sold out", async () => {
    const before = (await scrape()).samples;
    await t.db("events").where({ id: 2 }).update({ capacity: 0 });
    const res = await (await visitor(t.app))
      .post("/api/events/2/create-payment-intent")
      .set("x-forwarded-for", "198.18.7.1")
      .send({ option: "2day", formSessionId: `metrics-sold-out-${Date.now()}`, registrationData: { ...ATHLETE, registrationType: "2day", day1: true, day3: true } });
    expect(res.status).toBe(409);
    const { samples } = await scrape();
    expect(valueOf(samples, "ironside_holds_total", { outcome: "sold_out" }) - valueOf(before, "ironside_holds_total", { outcome: "sold_out" })).toBe(1);
    expect(valueOf(samples, "ironside_holds_total", { outcome: "held" }) - valueOf(before, "ironside_holds_total", { outcome: "held" })).toBe(0);
  });

  it("holds no token in any label, whatever the manage and offer links carry", async () => {
    const { path } = await kit.paidRegistration();
    const realToken = path.split("/")[2]!;
    const sent = new Set<string>([realToken]);
    const routes = [
      (tk: string) => `/my-registration/${tk}`,
      (tk: string) => `/my-registration/${tk}/cancel`,
      (tk: string) => `/my-registration/${tk}/calendar.ics`,
      (tk: string) => `/my-registration/${tk}/balance`,
      (tk: string) => `/waiting-list/offer/${tk}`,
      (tk: string) => `/waiting-list/confirm/${tk}`,
      (tk: string) => `/waiting-list/leave/${tk}`,
      (tk: string) => `/orders/${tk}`,
      (tk: string) => `/my-registration/${tk}/nothing-here/${tk}`,
    ];
    await request(t.app).get(`${path}/cancel`).set("x-forwarded-for", "198.18.8.1").expect(200);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: routes.length - 1 }), fc.stringMatching(/^[A-Za-z0-9_-]{12,48}$/), async (i, token) => {
        sent.add(token);
        const res = await request(t.app).get(routes[i]!(token)).set("x-forwarded-for", `198.18.9.${(i % 200) + 1}`);
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
    const { samples } = await scrape();
    const labelValues = new Set(samples.flatMap((s) => Object.values(s.labels)));
    for (const token of sent) for (const value of labelValues) expect(value, `a label holds ${token}`).not.toContain(token);
    const routeLabels = new Set(samples.filter((s) => s.name === "ironside_http_request_duration_seconds_count").map((s) => s.labels.route!));
    expect(routeLabels).toContain("/my-registration/:token/cancel");
    expect(routeLabels).toContain("unmatched");
  });

  it("is not served on the site's own port", async () => {
    expect((await request(t.app).get("/metrics")).status).toBe(404);
  });
});
