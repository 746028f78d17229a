import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { backend, createTestApp, type TestApp } from "../support/app.ts";
import { startTcpProxy } from "../support/proxy.ts";
import { textOf, visitor } from "../support/http.ts";
import { SESSION_DOWN_NOTICE } from "../../src/http/pageContext.ts";
import { SERVICE_UNAVAILABLE } from "../../src/http/errors.ts";
import { scaledMs } from "../support/timeouts.ts";
import { createDb } from "../../src/db/knex.ts";
import { eventsChangedChannel, type EventsVersionWatch } from "../../src/events/version.ts";
import { runEventsCommand } from "../../src/cli/events.ts";
import { parseEventsArgs, type EventsCommand } from "../../src/cli/eventsArgs.ts";
import { until } from "../support/until.ts";

async function timed<T>(p: PromiseLike<T>): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  const value = await p;
  return { value, ms: Date.now() - start };
}

// These take MySQL and Redis away from the app (through a proxy) and bring them back.
describe.runIf(backend === "mysql")("when Redis or MySQL stops", () => {
  let t: TestApp;
  let redisProxy: Awaited<ReturnType<typeof startTcpProxy>>;
  let mysqlProxy: Awaited<ReturnType<typeof startTcpProxy>>;

  beforeAll(async () => {
    const redisUrl = new URL(process.env.TEST_REDIS_URL!);
    const mysqlUrl = new URL(process.env.TEST_DATABASE_URL!);
    redisProxy = await startTcpProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
    mysqlProxy = await startTcpProxy({ host: mysqlUrl.hostname, port: Number(mysqlUrl.port || 3306) });
    // Pages kept: a kept page must not hide the session notice while Redis is away.
    t = await createTestApp({ PAGE_CACHE_MS: "60000" }, { viaPorts: { database: mysqlProxy.port, redis: redisProxy.port } });
  });

  afterAll(async () => {
    await redisProxy.up().catch(() => undefined);
    await mysqlProxy.up().catch(() => undefined);
    await t?.close();
    await redisProxy.close();
    await mysqlProxy.close();
  });

  it("keeps rendering pages, answers writes with 503 and readyz names Redis, then recovers without a restart", async () => {
    const before = await visitor(t.app);
    // Kept per origin: supertest gives every request its own port, so one Host for all.
    const about = () => request(t.app).get("/about").set("host", "shop.test");
    await about().expect(200);
    expect((await about().expect(200)).headers.age).toBeDefined();
    await redisProxy.down();
    await until(async () => !t.redis!.isReady);

    // A visitor without a session cookie is answered before the session middleware only while the store is up.
    const page = await timed(about());
    expect(page.value.status).toBe(200);
    expect(page.value.headers.age).toBeUndefined();
    expect(textOf(page.value.text)).toContain(SESSION_DOWN_NOTICE);
    expect(page.ms).toBeLessThan(scaledMs(2000));

    const ready = await timed(request(t.app).get("/readyz"));
    expect(ready.value.status).toBe(503);
    expect(ready.value.body.unavailable).toEqual(["redis"]);
    expect(ready.ms).toBeLessThan(scaledMs(2000));

    const write = await timed(before.post("/__test/echo").set("accept", "application/json").send({ a: 1 }));
    expect(write.value.status).toBe(503);
    expect(write.value.body.error).toMatch(/session service is unavailable/);
    expect(write.ms).toBeLessThan(scaledMs(2000));

    await redisProxy.up();
    await until(async () => (await request(t.app).get("/readyz")).status === 200);
    const after = await visitor(t.app);
    await after.post("/__test/echo").send({ a: 2 }).expect(200);
  });

  it("answers readyz 503 naming the database within 2 s while MySQL is away, then recovers", async () => {
    const payer = await visitor(t.app);
    const held = await payer.post("/api/events/1/create-payment-intent").set("x-forwarded-for", "203.0.113.77").send({
      option: "full",
      formSessionId: `resilience-${Date.now()}`,
      registrationData: {
        registrationType: "full", firstName: "Ada", lastName: "Away", email: "ada.away@example.com", phone: "(205) 555-0100", grade: "10th", gender: "Female",
        schoolName: "Central High", clubName: "Steel City WC", emergencyContactName: "Pat Away", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
      },
    });
    expect(held.status).toBe(200);
    await mysqlProxy.down();
    const ready = await timed(request(t.app).get("/readyz"));
    expect(ready.value.status).toBe(503);
    expect(ready.value.body.unavailable).toEqual(["database"]);
    expect(ready.ms).toBeLessThan(scaledMs(2000));

    const page = await timed(request(t.app).get("/about"));
    expect(page.value.status).toBe(200);
    expect(page.ms).toBeLessThan(scaledMs(2000));

    // The browser's return after paying: our database, not Stripe, is what failed (503 and the site's text, not 502).
    const paid = await timed(payer.post("/api/events/1/stripe-payment-success").send({ paymentIntentId: String(held.body.clientSecret).split("_secret_")[0] }));
    expect(paid.value.status).toBe(503);
    expect(paid.value.body).toEqual({ success: false, error: SERVICE_UNAVAILABLE });
    expect(paid.ms).toBeLessThan(scaledMs(2000));

    await mysqlProxy.up();
    await until(async () => (await request(t.app).get("/readyz")).status === 200);
  });

  it("shows an operator's change of events while Redis is away (the instance reads the version), and hears Redis again once it is back", async () => {
    const watch = t.app.locals.eventsVersion as EventsVersionWatch;
    const operator = createDb(t.config.database, t.logger);
    const get = (url: string) => request(t.app).get(url).set("host", "shop.test").expect(200);
    const rename = (title: string) => runEventsCommand(operator, parseEventsArgs(["update", "2", "--title", title]) as EventsCommand, new Date());
    try {
      await until(async () => watch.live());
      // Kept in the instance's event cache from here on.
      await get("/events/2");

      await redisProxy.down();
      await until(async () => !watch.live());
      await rename("Renamed While Redis Is Away");
      await until(async () => (await get("/events/2")).text.includes("Renamed While Redis Is Away"));

      await redisProxy.up();
      await until(async () => watch.live(), scaledMs(20_000));
      await get("/events/2");
      const heard = watch.heard();
      await rename("Renamed Once Redis Is Back");
      await t.redis!.publish(eventsChangedChannel(t.config.redis!.prefix), "1");
      await until(async () => watch.heard() > heard);
      expect((await get("/events/2")).text).toContain("Renamed Once Redis Is Back");
    } finally {
      await operator.destroy();
    }
  });
});
