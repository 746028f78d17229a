import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { startTcpProxy } from "../support/proxy.ts";
import { createApp } from "../../src/app.ts";
import { createStripeGateway, STRIPE_ATTEMPT_MS } from "../../src/payments/gateway.ts";
import { scaledMs } from "../support/timeouts.ts";

/** Production's /readyz asks Stripe whether it accepts the keys: here Stripe is the offline fake, reached through a proxy. */
let t: TestApp;
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;

beforeAll(async () => {
  t = await createTestApp();
  proxy = await startTcpProxy({ host: t.gateway.offline!.host, port: t.gateway.offline!.port });
});
afterAll(async () => {
  await proxy?.close();
  await t?.close();
});

function productionApp(secretKey: string, publishableKey = t.gateway.offline!.publishableKey) {
  const fake = t.gateway.offline!;
  const gateway = createStripeGateway({
    secretKey,
    publishableKey,
    webhookSecret: fake.webhookSecret,
    mode: "live",
    api: { host: "127.0.0.1", port: proxy.port, protocol: "http" },
  });
  return createApp({ ...t, gateway, config: { ...t.config, isProduction: true, publicUrl: "https://shop.example" } });
}

describe("production /readyz and the Stripe keys", () => {
  it("is ready when Stripe accepts the secret key, and keeps that answer a while instead of asking on every probe", async () => {
    const app = productionApp(t.gateway.offline!.secretKey);
    const first = await request(app).get("/readyz");
    expect(first.status).toBe(200);
    expect(first.body.checks).toMatchObject({ database: "ok", stripe: "ok" });
    // Stripe now hangs: the kept answer is given at once.
    proxy.pause();
    try {
      const started = Date.now();
      const again = await request(app).get("/readyz");
      expect(again.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(scaledMs(500));
    } finally {
      proxy.resume();
    }
  });

  it("answers 503 naming stripe and why when Stripe refuses the key", async () => {
    const res = await request(productionApp("sk_test_wrong_key_123")).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: "unavailable", unavailable: ["stripe"], stripe: "Stripe refused STRIPE_SECRET_KEY" });
    expect(JSON.stringify(res.body)).not.toContain("sk_test_wrong_key_123");
  });

  it("answers 503 within the deadline when Stripe does not answer", async () => {
    const app = productionApp(t.gateway.offline!.secretKey);
    proxy.pause();
    try {
      const started = Date.now();
      const res = await request(app).get("/readyz");
      expect(res.status).toBe(503);
      expect(res.body.stripe).toBe(`Stripe did not answer within ${STRIPE_ATTEMPT_MS} ms`);
      expect(Date.now() - started).toBeLessThan(scaledMs(STRIPE_ATTEMPT_MS + 1000));
    } finally {
      proxy.resume();
    }
  });

  it("refuses a live secret key with a test publishable key without asking Stripe", async () => {
    const res = await request(productionApp("sk_live_abc", "pk_test_abc")).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body.stripe).toBe("STRIPE_SECRET_KEY and STRIPE_PUBLISHABLE_KEY belong to different modes (live and test)");
  });

  it("outside production does not ask Stripe", async () => {
    const res = await request(t.app).get("/readyz");
    expect(res.status).toBe(200);
    expect(res.body.checks.stripe).toBeUndefined();
  });
});
