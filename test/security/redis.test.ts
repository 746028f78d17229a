import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { backend, createTestApp, type TestApp } from "../support/app.ts";
import { startTcpProxy } from "../support/proxy.ts";
import { textOf, visitor } from "../support/http.ts";
import { SESSION_DOWN_NOTICE } from "../../src/http/pageContext.ts";
import { closeRedis, connectRedis, redisAvailable, REDIS_COMMAND_TIMEOUT_MS } from "../../src/redis.ts";
import { createLogger } from "../../src/logger.ts";
import { until } from "../support/until.ts";

/**
 * Redis taken away through a TCP proxy (never the shared server itself): stopped (connections refused) and
 * paused (connections open, nothing answered, like `CLIENT PAUSE` or a hung host). Every answer comes within
 * 2 s, pages render with the notice, writes answer 503, and the site recovers without a restart.
 */
describe.runIf(backend === "mysql")("Redis stopped or paused", () => {
  let t: TestApp;
  let proxy: Awaited<ReturnType<typeof startTcpProxy>>;

  beforeAll(async () => {
    const redisUrl = new URL(process.env.TEST_REDIS_URL!);
    proxy = await startTcpProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
    t = await createTestApp({}, { viaPorts: { redis: proxy.port } });
  });
  afterAll(async () => {
    proxy?.resume();
    await proxy?.up().catch(() => undefined);
    await t?.close();
    await proxy?.close();
  });

  /** What visitors do during the outage: each answer within 2 s, pages with the notice, writes refused with 503. */
  async function everyAnswerWithinTwoSeconds(v: Awaited<ReturnType<typeof visitor>>) {
    const checks: { name: string; send: () => PromiseLike<request.Response>; status: number[]; notice?: boolean }[] = [
      { name: "home page", send: () => v.get("/"), status: [200], notice: true },
      { name: "shop page", send: () => v.get("/shop"), status: [200], notice: true },
      { name: "cart page", send: () => v.get("/cart"), status: [200], notice: true },
      { name: "contact page", send: () => request(t.app).get("/contact"), status: [200], notice: true },
      { name: "product API", send: () => request(t.app).get("/api/products/retail"), status: [200] },
      { name: "cart API", send: () => v.get("/api/cart"), status: [200] },
      { name: "cart add", send: () => v.post("/api/cart/add").send({ shopifyProductId: "1002", shopifyVariantId: "2101", quantity: 1 }), status: [503] },
      { name: "contact post", send: () => v.post("/api/contact").send({ name: "Sam Rivera", email: "sam@example.com", subject: "Hi", message: "During the outage." }), status: [503] },
      { name: "contact form", send: () => v.form("/contact", { name: "Sam Rivera", email: "sam@example.com", subject: "Hi", message: "During the outage." }), status: [503] },
      { name: "readyz", send: () => request(t.app).get("/readyz"), status: [503] },
    ];
    const timings: number[] = [];
    for (const check of checks) {
      const started = Date.now();
      const res = await check.send();
      const ms = Date.now() - started;
      timings.push(ms);
      expect(ms, `${check.name} took ${ms} ms`).toBeLessThan(2000);
      expect(check.status, `${check.name}: ${res.status}`).toContain(res.status);
      if (check.notice) expect(textOf(res.text), check.name).toContain(SESSION_DOWN_NOTICE);
    }
    return Math.max(...timings);
  }

  async function recovers(v: Awaited<ReturnType<typeof visitor>>) {
    await until(async () => (await request(t.app).get("/readyz")).status === 200);
    // The visitor's session (and cart) is back, and writes work again.
    const cart = await v.get("/api/cart");
    expect(cart.body.itemCount).toBe(1);
    const fresh = await visitor(t.app);
    await fresh.post("/api/cart/add").send({ shopifyProductId: "1002", shopifyVariantId: "2101", quantity: 1 }).expect(200);
  }

  it("stopped: every answer within 2 s, then recovery without a restart", { timeout: 60_000 }, async () => {
    const v = await visitor(t.app);
    await v.post("/api/cart/add").send({ shopifyProductId: "1002", shopifyVariantId: "2101", quantity: 1 }).expect(200);
    await proxy.down();
    await until(() => !t.redis!.isReady);
    const slowest = await everyAnswerWithinTwoSeconds(v);
    console.info(`redis stopped: slowest answer ${slowest} ms`);
    await proxy.up();
    await recovers(v);
  });

  it("paused: the first command gives up within the timeout, every answer within 2 s, then recovery", { timeout: 60_000 }, async () => {
    const v = await visitor(t.app);
    await v.post("/api/cart/add").send({ shopifyProductId: "1002", shopifyVariantId: "2101", quantity: 1 }).expect(200);
    proxy.pause();
    expect(t.redis!.isReady).toBe(true); // the connection is open: only the deadline can tell
    const first = Date.now();
    const page = await v.get("/about");
    const firstPageMs = Date.now() - first;
    expect(firstPageMs).toBeLessThan(2000);
    expect(page.status).toBe(200);
    expect(textOf(page.text)).toContain(SESSION_DOWN_NOTICE);
    expect(redisAvailable(t.redis!)).toBe(false);
    const slowest = await everyAnswerWithinTwoSeconds(v);
    console.info(`redis paused: first page ${firstPageMs} ms, then slowest answer ${slowest} ms`);
    proxy.resume();
    await recovers(v);
  });

  it("paused for longer than the reconnect delay: the silent connection is replaced, then recovery", { timeout: 60_000 }, async () => {
    const v = await visitor(t.app);
    await v.post("/api/cart/add").send({ shopifyProductId: "1002", shopifyVariantId: "2101", quantity: 1 }).expect(200);
    let replaced = 0;
    t.redis!.on("end", () => replaced++);
    proxy.pause();
    await v.get("/about");
    await until(() => replaced > 0);
    await everyAnswerWithinTwoSeconds(v);
    proxy.resume();
    await recovers(v);
  });
});

describe.runIf(backend === "mysql")("a busy event loop is not a stalled Redis", () => {
  it("a command whose answer waited while this process was busy resolves, and Redis stays available", async () => {
    const client = await connectRedis(process.env.TEST_REDIS_URL!, createLogger("silent"));
    try {
      const key = `test:busy:${Date.now()}`;
      const pending = client.set(key, "1", { EX: 10 });
      // Redis answers within a millisecond (allow it seconds on a loaded machine); this process reads the answer only
      // after synchronous work four times the deadline.
      const until = Date.now() + REDIS_COMMAND_TIMEOUT_MS * 4;
      while (Date.now() < until) {
        /* busy */
      }
      await expect(pending).resolves.toBe("OK");
      expect(redisAvailable(client)).toBe(true);
      expect(await client.get(key)).toBe("1");
    } finally {
      await closeRedis(client);
    }
  });
});
