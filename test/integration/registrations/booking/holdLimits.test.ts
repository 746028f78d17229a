import { describe, expect, it } from "vitest";
import { bookingApp } from "./helpers.ts";
import { visitor } from "../../../support/http.ts";
import { backend } from "../../../support/app.ts";
import { PAYMENT_CREATION_LIMIT } from "../../../../src/http/rateLimit.ts";
import { CODE_GUESS_LIMITS, RATE_LIMITED, REGISTRATION_RATE_LIMIT } from "../../../../src/registrations/core/routeKit.tsx";
import { DISCOUNT_REASONS } from "../../../../src/shared/discounts/rules.ts";

/**
 * A hold's rate limits (per address, per session's payments, per code guess) are counted in one Redis round trip
 * (src/http/rateLimit.ts: limitsInOneTrip), and still decide as they did one after another.
 */
const t = bookingApp({ webhooks: "asIs" });

const ATHLETE = {
  firstName: "Maya", lastName: "Okafor", email: "maya.okafor@example.com", phone: "(205) 555-0100", grade: "9th", gender: "Female",
  schoolName: "Central High", emergencyContactName: "Ada Okafor", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};
let addresses = 0;
const newAddress = () => `203.0.113.${++addresses}`;

type Visitor = Awaited<ReturnType<typeof visitor>>;
const hold = (v: Visitor, address: string, form: string) =>
  v.post("/api/events/2/create-payment-intent").set("x-forwarded-for", address).send({ option: "1day", formSessionId: form, registrationData: { ...ATHLETE, registrationType: "1day", day1: true } });
/** Refused as invalid (400) after the limits counted it; `code` names a discount code (a guess). */
const invalid = (v: Visitor, address: string, code?: string) =>
  v.post("/api/events/2/create-payment-intent").set("x-forwarded-for", address).send({ formSessionId: "x", registrationData: code ? { discountCode: code } : {} });

describe("a hold's rate limits, counted together", () => {
  it("refuses a session's payment-creating holds beyond its limit, whatever the address, and counts refused input not", { timeout: 60_000 }, async () => {
    const v = await visitor(t.app);
    for (let i = 0; i < 3; i++) expect((await invalid(v, newAddress())).status).toBe(400);
    const form = `limits-${Date.now()}`;
    const first = await hold(v, newAddress(), form);
    expect(first.status).toBe(200);
    // Each limit says its own state (IETF draft 8): the address's and the session's payments.
    expect(first.headers["ratelimit-policy"]).toContain(`q=${REGISTRATION_RATE_LIMIT.limit}; w=60`);
    expect(first.headers["ratelimit-policy"]).toContain(`q=${PAYMENT_CREATION_LIMIT.limit}; w=900`);
    expect(first.headers.ratelimit).toContain(`r=${PAYMENT_CREATION_LIMIT.limit - 1}`);
    for (let i = 1; i < PAYMENT_CREATION_LIMIT.limit; i++) expect((await hold(v, newAddress(), form)).status).toBe(200);
    const refused = await hold(v, newAddress(), form);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe(PAYMENT_CREATION_LIMIT.message);
    expect(refused.headers["retry-after"]).toBeDefined();
    // Another session is not affected.
    expect((await hold(await visitor(t.app), newAddress(), `other-${Date.now()}`)).status).toBe(200);
  });

  it("refuses an address's holds beyond its limit, and a request refused there counts no code guess", { timeout: 60_000 }, async () => {
    const crowded = newAddress();
    const first = await visitor(t.app);
    for (let i = 0; i < REGISTRATION_RATE_LIMIT.limit; i++) expect((await invalid(first, crowded)).status).toBe(400);
    const guesser = await visitor(t.app);
    for (let i = 0; i < 5; i++) {
      const res = await invalid(guesser, crowded, `GUESS${i}`);
      expect(res.status).toBe(429);
      expect(res.body.error).toBe(RATE_LIMITED);
    }
    // From another address the visitor still has every guess: the five refused above were never counted as guesses.
    const elsewhere = newAddress();
    for (let i = 0; i < CODE_GUESS_LIMITS.visitor.limit; i++) expect((await invalid(guesser, elsewhere, `GUESS${i}`)).status).toBe(400);
    const over = await invalid(guesser, elsewhere, "ONEMORE");
    expect(over.status).toBe(429);
    expect(over.body.error).toBe(DISCOUNT_REASONS.rateLimited);
  });

  it.runIf(backend === "mysql")("costs one Redis command for all of a hold's limits", async () => {
    const sent: string[] = [];
    const redis = t.redis!;
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = (args, ...rest) => (sent.push(String(args[0]).toUpperCase()), send(args, ...rest));
    try {
      const v = await visitor(t.app);
      await hold(v, newAddress(), `warm-${Date.now()}`);
      sent.length = 0;
      expect((await hold(v, newAddress(), `counted-${Date.now()}`)).status).toBe(200);
      expect(sent).toEqual(["EVALSHA"]);
      sent.length = 0;
      // With a code: four limits, still one command to count them (the refused answer then gives the session's payment count back).
      expect((await invalid(v, newAddress(), "GUESS")).status).toBe(400);
      expect(sent).toEqual(["EVALSHA", "DECR"]);
    } finally {
      redis.sendCommand = send;
    }
  });
});
