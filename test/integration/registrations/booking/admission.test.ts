import { describe, expect, it } from "vitest";
import { bookingApp } from "./helpers.ts";
import { backend } from "../../../support/app.ts";
import { visitor } from "../../../support/http.ts";
import { placesLeft } from "../../../../src/events/repository.ts";
import { createApp } from "../../../../src/app.ts";
import { createDb } from "../../../../src/db/knex.ts";
import { placesDrift } from "../../../../src/events/places.ts";
import { HOLD_TEXT } from "../../../../src/registrations/core/holding.ts";
import { REGISTRATION_ERRORS } from "../../../../src/shared/registrations/rules.ts";

/**
 * Holds admitted by one conditional statement on the event's count (src/events/places.ts), through the real route,
 * sent all at once (no queue in the app: every hold runs its own short transaction). After each crowd the count is
 * what the rows say (`placesDrift`, as `npm run capacity -- check` reads it) and never above capacity.
 */
const t = bookingApp({ webhooks: "asIs" });

const EVENT = 2;
const ATHLETE = {
  firstName: "Maya", lastName: "Okafor", email: "maya.okafor@example.com", phone: "(205) 555-0100", grade: "9th", gender: "Female",
  schoolName: "Central High", emergencyContactName: "Ada Okafor", emergencyContactPhone: "205-555-0199", adult: "on", agrees: "on",
};
let seq = 0;
const formId = () => `batch-form-${String(++seq).padStart(6, "0")}-${Date.now()}`;
type V = Awaited<ReturnType<typeof visitor>>;
const hold = (v: V, ip: string, form: string) =>
  v.post(`/api/events/${EVENT}/create-payment-intent`).set("x-forwarded-for", ip).send({ option: "1day", formSessionId: form, registrationData: { ...ATHLETE, registrationType: "1day", day1: true } });

/** Sends every hold at once. */
async function crowd(sends: (() => PromiseLike<{ status: number; body: Record<string, unknown> }>)[]) {
  return Promise.all(sends.map((send) => Promise.resolve(send())));
}

/** The event's count as the check reads it: equal to its rows, never above capacity. */
async function expectCountTrue() {
  expect(await placesDrift(t.db)).toEqual([]);
  const [row] = await t.db("event_places").join("events", "events.id", "event_places.event_id").where("events.id", EVENT).select("taken", "capacity");
  expect(Number(row.taken)).toBeLessThanOrEqual(Number(row.capacity));
}

async function leaveFree(places: number) {
  const taken = 200 - (await placesLeft(t.db, EVENT, new Date()));
  await t.db("events").where({ id: EVENT }).update({ capacity: taken + places });
}

describe("holds admitted at once, each by one statement", () => {
  it("two holds of one visitor at once over their cap: one is refused, the other visitors' holds are held, with exactly their rows", async () => {
    const limits = t.config.registrationLimits;
    const saved = { ...limits };
    limits.maxHeldPlacesPerVisitor = 1;
    await leaveFree(10);
    try {
      const capped = await visitor(t.app);
      const others = await Promise.all([0, 1, 2].map(() => visitor(t.app)));
      const forms = Array.from({ length: 5 }, formId);
      const answers = await crowd(
        [() => hold(capped, "198.51.100.10", forms[0]!), () => hold(capped, "198.51.100.10", forms[1]!), ...others.map((v, i) => () => hold(v, `198.51.100.${11 + i}`, forms[2 + i]!))],
      );
      const cappedAnswers = answers.slice(0, 2).map((a) => a.status).sort();
      expect(cappedAnswers).toEqual([200, 409]);
      expect(answers.find((a) => a.status === 409)!.body.userFriendlyMessage).toBe(HOLD_TEXT.visitorCap(1));
      expect(answers.slice(2).map((a) => a.status)).toEqual([200, 200, 200]);
      const refusedForm = forms[answers[0]!.status === 409 ? 0 : 1]!;
      const written = await t.db("registrations").whereIn("form_session_id", forms).select("form_session_id", "status", "places");
      expect(written.map((r: { form_session_id: string }) => r.form_session_id).sort()).toEqual(forms.filter((f) => f !== refusedForm).sort());
      expect(written.every((r: { status: string; places: number }) => r.status === "pending_payment" && Number(r.places) === 1)).toBe(true);
      expect(await placesLeft(t.db, EVENT, new Date())).toBe(6);
      await expectCountTrue();
    } finally {
      Object.assign(limits, saved);
      await t.db("events").where({ id: EVENT }).update({ capacity: 200 });
    }
  });

  it("30 holds at once on two instances for the last 10 places: exactly 10 held, the other 20 told it is sold out", async () => {
    await leaveFree(10);
    // On MySQL a second instance with its own pool shares the database: their holds meet at the count's one statement.
    const secondDb = backend === "mysql" ? createDb(t.config.database, t.logger) : t.db;
    const second = backend === "mysql" ? createApp({ config: t.config, db: secondDb, redis: t.redis, logger: t.logger, outbox: t.outbox, catalogue: t.catalogue, gateway: t.gateway, shopifyWriteBacks: undefined }) : t.app;
    try {
      const visitors = await Promise.all(Array.from({ length: 30 }, (_, i) => visitor(i % 2 === 0 ? t.app : second)));
      const forms = visitors.map(() => formId());
      const send = (i: number) => () => hold(visitors[i]!, `203.0.113.${i + 1}`, forms[i]!);
      const answers = await crowd(visitors.map((_, i) => send(i)));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
      expect(answers.filter((a) => a.status === 409 && a.body.error === REGISTRATION_ERRORS.soldOut)).toHaveLength(20);
      expect(await placesLeft(t.db, EVENT, new Date())).toBe(0);
      const written = await t.db("registrations").whereIn("form_session_id", forms).select("status", "places");
      expect(written).toHaveLength(10);
      expect(written.every((r: { status: string; places: number }) => r.status === "pending_payment" && Number(r.places) === 1)).toBe(true);
      expect(new Set(answers.filter((a) => a.status === 200).map((a) => String(a.body.clientSecret))).size).toBe(10);
      await expectCountTrue();
    } finally {
      await t.db("events").where({ id: EVENT }).update({ capacity: 200 });
      if (secondDb !== t.db) await secondDb.destroy();
    }
  });
});
