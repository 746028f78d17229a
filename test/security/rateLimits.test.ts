import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { visitor } from "../support/http.ts";
import { MESSAGE_RATE_LIMIT } from "../../src/inbox/routes.tsx";
import { PAYMENT_CREATION_LIMIT } from "../../src/http/rateLimit.ts";
import { CART_ADD_LIMIT_PER_MINUTE } from "../../src/cart/routes.tsx";
import { randomIp, shopperWithOneLine } from "./support.ts";
import { ADDRESS } from "../support/address.ts";

/** Rate limits hold against a client that sends a new X-Forwarded-For with every request (default: no trusted proxy). */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const message = { name: "Sam Rivera", email: "sam@example.com", subject: "Hello", message: "A message of some length." };

describe("rate limits", () => {
  it("counts contact posts per real address, whatever X-Forwarded-For says", async () => {
    const v = await visitor(t.app);
    const statuses: number[] = [];
    for (let i = 0; i < MESSAGE_RATE_LIMIT.limit + 5; i++) {
      statuses.push((await v.post("/api/contact").set("x-forwarded-for", randomIp()).send(message)).status);
    }
    expect(statuses.slice(0, MESSAGE_RATE_LIMIT.limit).every((s) => s === 201)).toBe(true);
    expect(statuses.slice(MESSAGE_RATE_LIMIT.limit)).toEqual([429, 429, 429, 429, 429]);
    expect(await t.db("contact_messages").count({ n: "*" }).first()).toEqual({ n: MESSAGE_RATE_LIMIT.limit });
  });

  it("limits orders and PaymentIntents per session, counting only those created", { timeout: 60_000 }, async () => {
    const { v, lineId } = await shopperWithOneLine(t.app);
    const body = {
      items: [{ id: lineId, shopifyProductId: "1002", shopifyVariantId: "2101", quantity: 1 }],
      customerInfo: { firstName: "Sam", lastName: "Rivera", email: "sam@example.com" },
      shippingAddress: ADDRESS,
    };
    // Refused input does not use up the allowance.
    for (let i = 0; i < 5; i++) expect((await v.post("/api/cart/checkout").send({ ...body, customerInfo: {} })).status).toBe(400);
    const statuses: number[] = [];
    for (let i = 0; i < PAYMENT_CREATION_LIMIT.limit + 2; i++) {
      // A new quantity each time: a new order and a new PaymentIntent, as in the probe.
      const quantity = (i % 2) + 1;
      await v.patch(`/api/cart/items/${lineId}`).send({ quantity });
      statuses.push((await v.post("/api/cart/checkout").set("x-forwarded-for", randomIp()).send({ ...body, items: [{ ...body.items[0], quantity }] })).status);
    }
    expect(statuses.slice(0, PAYMENT_CREATION_LIMIT.limit).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(PAYMENT_CREATION_LIMIT.limit)).toEqual([429, 429]);
    const limited = await v.post("/api/cart/checkout").send(body);
    expect(limited.body.error).toBe(PAYMENT_CREATION_LIMIT.message);
    expect(await t.db("payments").count({ n: "*" }).first()).toEqual({ n: PAYMENT_CREATION_LIMIT.limit });
    // Another visitor is not affected.
    const other = await shopperWithOneLine(t.app);
    const fresh = await other.v.post("/api/cart/checkout").send({ ...body, items: [{ ...body.items[0], id: other.lineId }] });
    expect(fresh.status).toBe(200);
  });
  it("limits cart adds per address", { timeout: 60_000 }, async () => {
    const v = await visitor(t.app);
    const line = { shopifyProductId: "1002", shopifyVariantId: "2101", quantity: 1 };
    const statuses: number[] = [];
    for (let i = 0; i < CART_ADD_LIMIT_PER_MINUTE + 3; i++) {
      statuses.push((await v.post("/api/cart/add").set("x-forwarded-for", randomIp()).send(line)).status);
    }
    const firstLimited = statuses.indexOf(429);
    // The earlier tests' adds from this address count too, so the limit comes a few adds early.
    expect(firstLimited).toBeGreaterThan(CART_ADD_LIMIT_PER_MINUTE - 10);
    expect(firstLimited).toBeLessThanOrEqual(CART_ADD_LIMIT_PER_MINUTE);
    expect(statuses.slice(firstLimited).every((s) => s === 429)).toBe(true);
  });

});
