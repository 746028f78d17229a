import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Express } from "express";
import { createTestApp, type TestApp } from "../support/app.ts";
import { textOf, visitor } from "../support/http.ts";
import { startTcpProxy } from "../support/proxy.ts";
import { createApp } from "../../src/app.ts";
import { createStripeGateway, STRIPE_ATTEMPT_MS, STRIPE_DEADLINE_MS } from "../../src/payments/gateway.ts";
import { scaledMs } from "../support/timeouts.ts";

/**
 * A hung Stripe (it accepts the connection and never answers) costs a visitor at most STRIPE_DEADLINE_MS (two
 * attempts of STRIPE_ATTEMPT_MS and the SDK's backoff), and a slow one (answering within an attempt) is waited for:
 * the same SDK code talks to the offline fake through a proxy that the test pauses.
 */
let t: TestApp;
let app: Express;
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;

beforeAll(async () => {
  t = await createTestApp({ TRUST_PROXY_HOPS: "1" });
  const fake = t.gateway.offline!;
  proxy = await startTcpProxy({ host: fake.host, port: fake.port });
  const gateway = createStripeGateway({
    secretKey: fake.secretKey,
    publishableKey: fake.publishableKey,
    webhookSecret: fake.webhookSecret,
    mode: "offline",
    offline: fake,
    api: { host: "127.0.0.1", port: proxy.port, protocol: "http" },
  });
  app = createApp({ ...t, gateway });
});
afterAll(async () => {
  await proxy?.close();
  await t?.close();
});

const ATHLETE = {
  firstName: "Hung", lastName: "Stripe", email: "hung.stripe@example.com", phone: "(205) 555-0100", grade: "10th", gender: "Male",
  schoolName: "Central High", clubName: "Steel City WC", emergencyContactName: "Pat Stripe", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};
const UNAVAILABLE = "Payment system is temporarily unavailable. Please try again in a few moments.";

describe("when Stripe hangs", () => {
  it("a payment start answers 502 with the spec's message within the deadline, lets the place go, and works once Stripe answers", async () => {
    expect(STRIPE_DEADLINE_MS).toBeLessThanOrEqual(5_000);
    const v = await visitor(app);
    const formSessionId = `stripe-deadline-${Date.now()}`;
    const start = () =>
      v.post("/api/events/1/create-payment-intent").set("x-forwarded-for", "203.0.113.40")
        .send({ option: "full", formSessionId, registrationData: { ...ATHLETE, registrationType: "full" } });
    proxy.pause();
    try {
      const began = Date.now();
      const res = await start();
      const took = Date.now() - began;
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ success: false, title: "Payment Setup Error", userFriendlyMessage: UNAVAILABLE });
      // Stripe never answers while paused: an answer at all is the deadline's. The bound is a guard, scaled with load.
      expect(took).toBeLessThan(scaledMs(STRIPE_DEADLINE_MS + 500));
      // The SDK tried twice (its own retry), not once: the first attempt was given up after STRIPE_ATTEMPT_MS.
      expect(took).toBeGreaterThan(2 * STRIPE_ATTEMPT_MS - 100);
      // The place is not kept for a payment that could not start.
      const held = await t.db("registrations").where({ form_session_id: formSessionId }).first();
      expect(held).toMatchObject({ status: "canceled" });
    } finally {
      proxy.resume();
    }
    const again = await start();
    expect(again.status).toBe(200);
    expect(again.body.clientSecret).toMatch(/_secret_/);
  });

  it("a slow Stripe (1.5 s an answer, within one attempt) is waited for: the payment starts", async () => {
    const fake = t.gateway.offline!;
    fake.latencyMs = 1_500;
    try {
      const v = await visitor(app);
      const res = await v.post("/api/events/1/create-payment-intent").set("x-forwarded-for", "203.0.113.42")
        .send({ option: "full", formSessionId: `stripe-slow-${Date.now()}`, registrationData: { ...ATHLETE, registrationType: "full" } });
      expect(res.status).toBe(200);
      expect(res.body.clientSecret).toMatch(/_secret_/);
    } finally {
      fake.latencyMs = 0;
    }
  });

  it("the registration form without JavaScript shows the message on its page within the deadline", async () => {
    const v = await visitor(app);
    proxy.pause();
    try {
      const began = Date.now();
      const res = await v.form("/register/1", { ...ATHLETE, formSessionId: `stripe-deadline-form-${Date.now()}`, registrationType: "full" }).set("x-forwarded-for", "203.0.113.41");
      expect(Date.now() - began).toBeLessThan(scaledMs(STRIPE_DEADLINE_MS + 500));
      if (res.status === 303) {
        const next = await v.get(res.headers.location as string);
        expect(textOf(next.text)).toContain(UNAVAILABLE);
      } else {
        expect(res.status).toBe(502);
        expect(textOf(res.text)).toContain(UNAVAILABLE);
      }
    } finally {
      proxy.resume();
    }
  });
});
