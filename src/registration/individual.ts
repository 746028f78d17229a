import { randomInt } from "node:crypto";
import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { lockForUpdate } from "../db/locks.ts";
import { toDate } from "../db/rows.ts";
import type { Logger } from "../logger.ts";
import type { Site } from "../site.ts";
import type { Outbox } from "../email/outbox.ts";
import { enqueueEmail } from "../email/outbox.ts";
import { isUnavailable } from "../http/errors.ts";
import { DomainError } from "../errors.ts";
import { PaymentNotOpenError, type PaymentCore, type SettleResult } from "../payments/core.ts";
import { findEvent, placesLeft } from "../events/repository.ts";
import { registrationClosingTime } from "../events/rules.ts";
import type { EventDetail } from "../events/types.ts";
import { REGISTRATION_ERRORS, findPackage, type IndividualRegistration } from "./rules.ts";
import * as repo from "./repository.ts";
import type { Registration } from "./repository.ts";
import { registrationConfirmationEmail, lateRegistrationRefundEmail } from "./email.ts";
import { redeemOnPaid, releaseOnExpiry, repriceOnRehold } from "../discounts/redemptions.ts";

export const REGISTRATION_KIND = "registration";
/** A pending registration holds its place this long while the visitor pays. */
export const HOLD_MINUTES = 30;

export const PAYMENT_SETUP_ERROR = {
  title: "Payment Setup Error",
  message: "Payment system is temporarily unavailable. Please try again in a few moments.",
} as const;

export interface RegistrationDeps {
  db: Db;
  paymentCore: PaymentCore;
  outbox: Outbox;
  logger: Logger;
  site: Site;
  now?: () => Date;
}

const REFERENCE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
function newReference(): string {
  let s = "R";
  for (let i = 0; i < 7; i++) s += REFERENCE_ALPHABET[randomInt(REFERENCE_ALPHABET.length)];
  return s;
}

/**
 * The registrations' handler in the payment core. A payment that arrives for a lapsed hold takes a place
 * only when one is free (decided under the event lock); otherwise the core refunds it and the payer is told.
 */
export function registerRegistrationPayments(deps: RegistrationDeps): void {
  const clock = deps.now ?? (() => new Date());
  deps.paymentCore.register(REGISTRATION_KIND, {
    async onPaid(trx, payment) {
      const found = await trx("registrations").where({ reference: payment.reference }).first("id", "event_id", "status", "reserved_until", "places");
      if (!found) return { reject: "no such registration" };
      if (found.status === "paid") return "duplicate";
      const now = clock();
      const held = found.status === "pending_payment" && (toDate(found.reserved_until)?.getTime() ?? 0) > now.getTime();
      if (!held) {
        // The hold lapsed: a place must still be free. The core's payment lock is this transaction's first
        // statement, so the event row is locked here, before the count.
        await trx("events").where({ id: found.event_id }).forUpdate().first("id");
        const left = await placesLeft(trx, Number(found.event_id), now, Number(found.id), { locking: true });
        if (left < Number(found.places)) return refuse("full", "the hold expired and the event is full");
      }
      // The discount code's use: kept by a live hold, or taken again now if the code still has one.
      const discount = await redeemOnPaid(trx, Number(found.id), held, now);
      if ("reject" in discount) return refuse("discount", discount.reject);
      if (!(await repo.markPaid(trx, Number(found.id), payment.amountCents, now))) return "duplicate";
      const registration = (await repo.findByReference(trx, payment.reference))!;
      const event = await findEvent(trx, registration.eventId);
      if (event) await enqueueEmail(trx, registrationConfirmationEmail(deps.site, event, registration, discount.redemption));
      return "accepted";

      async function refuse(why: "full" | "discount", reason: string) {
        await repo.markRefunded(trx, Number(found.id), now);
        const registration = (await repo.findByReference(trx, payment.reference))!;
        const event = await findEvent(trx, registration.eventId);
        if (event) await enqueueEmail(trx, lateRegistrationRefundEmail(deps.site, event, registration, payment.amountCents, why));
        return { reject: reason };
      }
    },
    async expectedAmountCents(trx, reference) {
      const row = await trx("registrations").where({ reference }).first("amount_cents");
      return row ? Number(row.amount_cents) : null;
    },
    async afterPaid() {
      deps.outbox.wake();
    },
  });
}

/**
 * Holds for one event run one at a time in this process. The database lock decides (and is what makes several
 * instances safe); queueing here first keeps a crowd's requests from each holding a pooled connection while
 * they wait for that lock, which would starve the pool and turn a sold-out answer into a 503.
 */
const queuesByDb = new WeakMap<Db, Map<number, Promise<void>>>();
function oneAtATime<T>(db: Db, eventId: number, work: () => Promise<T>): Promise<T> {
  let holdQueues = queuesByDb.get(db);
  if (!holdQueues) queuesByDb.set(db, (holdQueues = new Map()));
  const queues = holdQueues;
  const previous = queues.get(eventId) ?? Promise.resolve();
  const run = previous.then(work);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(eventId, tail);
  void tail.then(() => {
    if (queues.get(eventId) === tail) queues.delete(eventId);
  });
  return run;
}

export interface HoldResult {
  registration: Registration;
  clientSecret: string | null;
  /** Already paid (through either path): nothing left to pay. */
  paid: boolean;
}

/** What a registration of either kind asks of the hold: its form, its places, and how its rows are written. */
export interface HoldRequest {
  kind: repo.RegistrationKind;
  formSessionId: string;
  places: number;
  /** The references this visitor's session made: another visitor's form id is refused. */
  owned: string[];
  /** Called once the places are held: the visitor owns the hold from then on. */
  onHeld: (reference: string) => void;
  /** Writes the pending registration (new, or the same form's row again) inside the transaction that holds the event lock. */
  write(trx: Knex.Transaction, ctx: { existing: Registration | undefined; reference: string; now: Date; reservedUntil: Date }): Promise<void>;
  /** The answer when fewer than `places` are left. */
  fullMessage(left: number): string;
  /** Runs after the hold and before the PaymentIntent (a discount code entered with the form). */
  beforeIntent?: (registration: Registration) => Promise<void>;
}

/**
 * Holds a registration's places (or re-holds the same registration when the same form comes back with changed
 * details): one transaction whose first statement locks the event row checks the closing time and the places
 * left, and writes the rows. Then, outside it, the registration's one PaymentIntent for its amount.
 */
export async function holdRegistration(deps: RegistrationDeps, event: EventDetail, request: HoldRequest): Promise<HoldResult> {
  const now = (deps.now ?? (() => new Date()))();
  const existing = await repo.findByFormSession(deps.db, request.formSessionId);
  if (existing && (!request.owned.includes(existing.reference) || existing.eventId !== event.id || existing.kind !== request.kind)) {
    throw new DomainError("conflict", REGISTRATION_ERRORS.formExpired);
  }
  if (existing?.status === "paid") return { registration: existing, clientSecret: null, paid: true };

  let reference = existing?.reference ?? newReference();
  await oneAtATime(deps.db, event.id, () => deps.db.transaction(async (trx) => {
    const locked = await lockForUpdate(trx, "events", event.id);
    if (!locked) throw new DomainError("not_found", REGISTRATION_ERRORS.closed);
    // The same form submitted twice at once (a double click): the first one's row, committed before this lock, is the one.
    const current = existing ?? (await repo.findByFormSession(trx, request.formSessionId));
    if (current && (current.eventId !== event.id || current.kind !== request.kind || current.status === "paid")) {
      throw new DomainError("conflict", REGISTRATION_ERRORS.formExpired);
    }
    if (current) reference = current.reference;
    const closesAt = registrationClosingTime(toDate(locked.registration_closes_at), toDate(locked.start_date)!);
    if (closesAt.getTime() <= now.getTime()) throw new DomainError("conflict", REGISTRATION_ERRORS.closed);
    const left = await placesLeft(trx, event.id, now, current?.id);
    if (left < request.places) throw new DomainError("conflict", request.fullMessage(left));
    await request.write(trx, { existing: current, reference, now, reservedUntil: new Date(now.getTime() + HOLD_MINUTES * 60_000) });
  }));
  // From here the visitor owns the hold, so a retry of the same form reuses it whatever happens next.
  request.onHeld(reference);
  let registration = (await repo.findByReference(deps.db, reference))!;
  if (request.beforeIntent) {
    await request.beforeIntent(registration);
    // It may have changed the amount (a discount code): the intent is made for what is stored now.
    registration = (await repo.findByReference(deps.db, reference))!;
  }
  // A discount made it free: nothing to charge, so no PaymentIntent (the free registration is completed on the payment step).
  if (registration.amountCents === 0) return { registration, clientSecret: null, paid: false };

  try {
    const { clientSecret } = await deps.paymentCore.ensureIntent({
      kind: REGISTRATION_KIND,
      reference,
      amountCents: registration.amountCents,
      description: intentDescription(event, registration),
      email: registration.contact.email,
    });
    return { registration, clientSecret, paid: false };
  } catch (err) {
    if (err instanceof PaymentNotOpenError && err.payment.status === "paid") {
      return { registration: (await repo.findByReference(deps.db, reference))!, clientSecret: null, paid: true };
    }
    deps.logger.error({ err: (err as Error).message, reference }, "could not set up the registration's PaymentIntent; hold released");
    await repo.releaseHold(deps.db, reference).catch(() => undefined);
    // A database that stopped answering is the error page's 503; anything else is Stripe's side.
    if (isUnavailable(err)) throw err;
    throw new DomainError("upstream_failed", PAYMENT_SETUP_ERROR.message);
  }
}

/** What Stripe's dashboard and the card statement's receipt say about a registration's payment. */
export function intentDescription(event: { title: string }, r: Registration): string {
  return r.kind === "team"
    ? `${event.title}: team of ${r.places}${r.teamName ? ` (${r.teamName})` : ""} (${r.reference})`
    : `${event.title}: ${r.packageLabel} (${r.reference})`;
}

/**
 * Step 1 -> step 2: holds one place (or re-holds the same registration when the same form comes back with
 * a changed package or details), then obtains the registration's one PaymentIntent for the package price.
 * `owned` are the references this visitor's session made: another visitor's form id is refused.
 */
export async function holdAndPrepare(
  deps: RegistrationDeps,
  event: EventDetail,
  data: IndividualRegistration,
  visitor: {
    owned: string[];
    onHeld: (reference: string) => void;
    /** Runs after the hold and before the PaymentIntent (a discount code entered with step 1). */
    beforeIntent?: (registration: Registration) => Promise<void>;
  },
): Promise<HoldResult> {
  return holdRegistration(deps, event, {
    kind: "individual",
    formSessionId: data.formSessionId,
    places: 1,
    ...visitor,
    fullMessage: () => REGISTRATION_ERRORS.soldOut,
    async write(trx, { existing, reference, now, reservedUntil }) {
      // The price is the event's package price as stored now, never anything the browser sent.
      const pkgRow = await trx("event_packages").where({ event_id: event.id, code: data.registrationType }).first("price_cents");
      const pkg = findPackage(event, data.registrationType);
      if (!pkgRow || !pkg) throw new DomainError("invalid", REGISTRATION_ERRORS.packageUnknown);
      const hold: repo.IndividualHold = { eventId: event.id, packageLabel: pkg.label, priceCents: Number(pkgRow.price_cents), reservedUntil, data };
      if (existing) {
        const wasLive = existing.status === "pending_payment" && (existing.reservedUntil?.getTime() ?? 0) > now.getTime();
        await repo.updateIndividual(trx, existing.id, hold, now);
        await repriceOnRehold(trx, existing.id, wasLive, hold.priceCents, now);
      } else await repo.insertIndividual(trx, reference, hold, now);
    },
  });
}

/** The browser's return after the card was confirmed: settle through the core, for this visitor's own registration only. */
export async function confirmPayment(deps: RegistrationDeps, reference: string | undefined, paymentIntentId: string): Promise<SettleResult> {
  const payment = reference ? await deps.paymentCore.latestFor(REGISTRATION_KIND, reference) : undefined;
  if (!payment || payment.providerPaymentId !== paymentIntentId) throw new DomainError("forbidden", "This payment does not belong to your registration.");
  return deps.paymentCore.settle(paymentIntentId, "return");
}

/**
 * The periodic sweep: the PaymentIntents of lapsed holds are canceled and the holds marked expired (their
 * places were already free). Safe with several instances: canceling twice is harmless, the status change is
 * one conditional UPDATE, and a payment that succeeded meanwhile is settled by the core instead of canceled.
 */
export async function sweepExpiredHolds(deps: RegistrationDeps, limit = 50): Promise<number> {
  const now = (deps.now ?? (() => new Date()))();
  let swept = 0;
  for (const hold of await repo.expiredHolds(deps.db, now, limit)) {
    const live = await deps.paymentCore.liveFor(REGISTRATION_KIND, hold.reference);
    try {
      // Cancel first: should Stripe have taken the money meanwhile, the core settles it instead (paid or refunded).
      if (live) await deps.paymentCore.cancel(live);
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message, reference: hold.reference }, "could not cancel an expired hold's PaymentIntent; the next sweep tries again");
      continue;
    }
    if (await repo.markExpired(deps.db, hold.id, now)) {
      await releaseOnExpiry(deps.db, hold.id, now);
      swept += 1;
    }
  }
  return swept;
}
