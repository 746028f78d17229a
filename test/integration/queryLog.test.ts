import express from "express";
import { pinoHttp } from "pino-http";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { createLogger } from "../../src/logger.ts";
import { eventCaches } from "../../src/events/cache.ts";
import { countRequestQueries, queryLog } from "../../src/db/queryLog.ts";
import { queuedLockingTransaction } from "../../src/db/rowQueue.ts";

/**
 * Development's per-request query log, read back from the log: every page type runs no SQL text twice, with
 * empty caches and with warm ones, and /events runs as many queries for 4 events as for 10.
 */
type Line = Record<string, unknown> & { msg?: string; req?: { url?: string }; queries?: number; sql?: string };
const lines: Line[] = [];
let t: TestApp;

beforeAll(async () => {
  const logger = createLogger("debug", { write: (s: string) => void lines.push(JSON.parse(s) as Line) });
  // The query log is on in development only: this app asks for it.
  t = await createTestApp({ NODE_ENV: "development" }, { logger });
});
afterAll(async () => {
  await t?.close();
});

const REPEATED = "the same query ran more than once in one request";

function emptyCaches() {
  eventCaches(t.db).events.invalidate();
  eventCaches(t.db).places.invalidate();
}

/**
 * GETs the page and returns what the query log said about that request. `queries` leaves out the events' version
 * check (`content_versions`): read at most every 250 ms and shared, whether one request pays for it is the clock's.
 */
async function logged(path: string): Promise<{ queries: number; repeated: Line[]; text: string }> {
  lines.length = 0;
  let versionChecks = 0;
  const listener = (q: { sql?: string }) => void (q.sql?.includes("content_versions") && versionChecks++);
  t.db.on("query", listener);
  let res: request.Response;
  try {
    res = await request(t.app).get(path);
  } finally {
    t.db.off("query", listener);
  }
  expect(res.status, path).toBe(200);
  const forPath = (l: Line) => l.req?.url === path;
  const isCount = (l: Line) => forPath(l) && l.msg === "database queries";
  await expect.poll(() => lines.some(isCount), { timeout: 2000 }).toBe(true);
  return { queries: lines.find(isCount)!.queries! - versionChecks, repeated: lines.filter((l) => forPath(l) && l.msg === REPEATED), text: res.text };
}

const PAGES = [
  "/",
  "/shop",
  "/shop/heavyweight-tee",
  "/events",
  "/events/2",
  "/custom-apparel",
  "/contact",
  "/cart",
  "/about",
  "/team-events",
  "/api/events/2",
  "/register/2",
  "/team-register/2",
];

function paidRegistration(eventId: number) {
  const now = new Date();
  return {
    reference: `Q${eventId}`,
    event_id: eventId,
    kind: "individual",
    status: "paid",
    places: 1,
    package_code: "full",
    package_label: "Full",
    list_price_cents: 100,
    amount_cents: 100,
    contact_first_name: "A",
    contact_last_name: "B",
    contact_email: "a@example.com",
    contact_phone: "5551234567",
    form_session_id: `query-log-form-${eventId}`,
    agreed_at: now,
    created_at: now,
    updated_at: now,
  };
}

describe("per-request query log (development)", () => {
  it("finds no SQL text run twice in any page type, with empty caches", async () => {
    for (const path of PAGES) {
      emptyCaches();
      const { repeated } = await logged(path);
      expect(repeated, path).toEqual([]);
    }
  });

  // No read per request: with Redis an operator's change is announced; without it an instance reads the events'
  // version stamp at most every 250 ms, one read shared by every request meanwhile (src/events/version.ts; not counted).
  it("serves event pages from the cache once warm: no query but, at most, the events' version stamp", async () => {
    for (const path of ["/", "/events", "/events/2", "/api/events/2", "/team-events"]) {
      await logged(path);
      expect((await logged(path)).queries, path).toBe(0);
    }
  });

  it("runs the same number of queries for /events whatever the number of events", async () => {
    emptyCaches();
    const before = await logged("/events");
    expect(before.queries).toBeGreaterThan(0);

    // Six more listed events with packages, days, logos and registrations. Writing invalidates the caches.
    const [template] = await t.db("events").where({ id: 2 });
    const ids = [101, 102, 103, 104, 105, 106];
    await t.db("events").insert(ids.map((id) => ({ ...template, id, title: `Extra Camp ${id}` })));
    for (const table of ["event_packages", "event_days", "event_college_logos"]) {
      const source = await t.db(table).orderBy("id").first("event_id");
      const rows: Record<string, unknown>[] = await t.db(table).where({ event_id: source.event_id });
      await t.db(table).insert(ids.flatMap((event_id) => rows.map(({ id: _id, ...row }) => ({ ...row, event_id }))));
    }
    await t.db("registrations").insert(ids.map((event_id) => paidRegistration(event_id)));
    const after = await logged("/events");
    for (const id of ids) expect(after.text).toContain(`Extra Camp ${id}`);
    expect(after.queries).toBe(before.queries);
    expect(after.repeated).toEqual([]);
  });
});

describe("the repeat warning", () => {
  it("names a query a request runs twice, without its values, and leaves a read repeated inside a transaction alone", async () => {
    const own: Line[] = [];
    const logger = createLogger("debug", { write: (s: string) => void own.push(JSON.parse(s) as Line) });
    const app = express();
    app.use(pinoHttp({ logger }));
    countRequestQueries(t.db);
    app.use(queryLog({ development: true }));
    const byEmail = () => t.db("newsletter_subscribers").where({ email: "someone@example.com" }).first();
    app.get("/twice", async (_req, res) => {
      await byEmail();
      await byEmail();
      res.end();
    });
    app.get("/again-under-lock", async (_req, res) => {
      await byEmail();
      await t.db.transaction(async (trx) => trx("newsletter_subscribers").where({ email: "someone@example.com" }).first());
      res.end();
    });

    await request(app).get("/twice").expect(200);
    await expect.poll(() => own.some((l) => l.msg === "database queries")).toBe(true);
    const warned = own.filter((l) => l.msg === REPEATED);
    expect(warned).toHaveLength(1);
    expect(warned[0]!.sql).toMatch(/newsletter_subscribers/);
    expect(JSON.stringify(own)).not.toContain("someone@example.com");
    expect(own.find((l) => l.msg === "database queries")!.queries).toBe(2);

    own.length = 0;
    await request(app).get("/again-under-lock").expect(200);
    await expect.poll(() => own.some((l) => l.msg === "database queries")).toBe(true);
    expect(own.filter((l) => l.msg === REPEATED)).toEqual([]);
  });
});

describe("the row lock line", () => {
  it("tells a request's queries outside and inside its queued locking transaction, and its lock times, in production too", async () => {
    const own: Line[] = [];
    const logger = createLogger("info", { write: (s: string) => void own.push(JSON.parse(s) as Line) });
    const app = express();
    app.use(pinoHttp({ logger }));
    countRequestQueries(t.db);
    app.use(queryLog({ development: false }));
    app.get("/locked", async (_req, res) => {
      await t.db("events").where({ id: 1 }).first("id");
      await queuedLockingTransaction(t.db, "event:1", async (trx) => {
        await trx("events").where({ id: 1 }).forUpdate().first("id");
        await trx("event_packages").where({ event_id: 1 }).first("id");
      });
      res.end();
    });
    app.get("/unlocked", async (_req, res) => {
      await t.db("events").where({ id: 1 }).first("id");
      res.end();
    });

    await request(app).get("/unlocked").expect(200);
    await request(app).get("/locked").expect(200);
    await expect.poll(() => own.some((l) => l.msg === "row lock")).toBe(true);
    const lines = own.filter((l) => l.msg === "row lock");
    expect(lines).toHaveLength(1);
    const line = lines[0] as Line & { route: string; lock: string; queries: { outside: number; inside: number }; transactions: number; ms: Record<string, number> };
    expect(line.route).toBe("GET /locked");
    expect(line.lock).toBe("event:1");
    expect(line.queries.outside).toBe(1);
    // BEGIN (and SET TRANSACTION on MySQL), the two statements, COMMIT.
    expect(line.queries.inside).toBeGreaterThanOrEqual(4);
    expect(line.transactions).toBe(1);
    expect(Object.keys(line.ms).sort()).toEqual(["held", "lockWait", "queued"]);
    expect(own.some((l) => l.msg === "database queries")).toBe(false);
  });
});
