import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { APPLE_PAY_DOMAIN_PATH } from "../../src/payments/applePayDomain.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "apple-pay-"));
const file = path.join(dir, "apple-developer-merchantid-domain-association");
const association = "7B227073704964223A2246454542 test association\n";
fs.writeFileSync(file, association);

let configured: TestApp;
let unset: TestApp;
beforeAll(async () => {
  configured = await createTestApp({ APPLE_PAY_DOMAIN_FILE: file });
  unset = await createTestApp();
});
afterAll(async () => {
  await configured?.close();
  await unset?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("Apple Pay's domain association file", () => {
  it("is served as it is in the file named by APPLE_PAY_DOMAIN_FILE, as text, without a cookie", async () => {
    const res = await request(configured.app).get(APPLE_PAY_DOMAIN_PATH);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/plain/);
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(res.text).toBe(association);
  });

  it("answers 404 when the setting is unset", async () => {
    const res = await request(unset.app).get(APPLE_PAY_DOMAIN_PATH);
    expect(res.status).toBe(404);
  });

  it("stops the start when the file named cannot be read", async () => {
    await expect(createTestApp({ APPLE_PAY_DOMAIN_FILE: path.join(dir, "missing") })).rejects.toThrow(/APPLE_PAY_DOMAIN_FILE cannot be read/);
  });
});

describe("the CSP and the Express Checkout Element", () => {
  it("allows Stripe.js's documented script, frame and connect sources on a payment page", async () => {
    const csp = (await request(unset.app).get("/cart")).headers["content-security-policy"] as string;
    const directive = (name: string) => csp.split(";").map((d) => d.trim()).find((d) => d.startsWith(`${name} `))?.split(/\s+/).slice(1) ?? [];
    expect(directive("script-src")).toEqual(expect.arrayContaining(["https://js.stripe.com", "https://*.js.stripe.com"]));
    expect(directive("frame-src")).toEqual(expect.arrayContaining(["https://js.stripe.com", "https://*.js.stripe.com", "https://hooks.stripe.com"]));
    expect(directive("connect-src")).toEqual(expect.arrayContaining(["https://api.stripe.com"]));
  });
});
