import { randomInt } from "node:crypto";
import type { Knex } from "knex";
import { toDate } from "../../db/rows.ts";
import { batchedLockingTransaction, queuedLockingTransaction } from "../../db/rowQueue.ts";
import { isUnavailable } from "../../http/errors.ts";
import { DomainError } from "../../errors.ts";
import { placesLeft, placesTaken } from "../../events/repository.ts";
import { registrationClosingTime } from "../../shared/events/rules.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import type { Db } from "../../db/knex.ts";
import { REGISTRATION_ERRORS, findPackage, type IndividualRegistration } from "../../shared/registrations/rules.ts";
import { TEAM_TEXT, type TeamRegistration } from "../../shared/registrations/teamRules.ts";
import * as repo from "../core/repository.ts";
import type { Holder, Registration } from "../core/repository.ts";
import { isSettled } from "../core/states.ts";
import { holdIsLive, HOLD_MINUTES, type RegistrationDeps } from "../core/deps.ts";
import { holdUse, lockCodeNamed, repriceHeldUse } from "./codes.ts";
import { PAYMENT_SETUP_ERROR, PAYMENT_STILL_CONFIRMING, paymentUnderWay, preparePayment } from "./payment.ts";
import { isRequestInFlight } from "../../payments/gateway.ts";
import { placesForSale } from "../waitlist/forSale.ts";
import type { PaymentPlan } from "../../shared/registrations/deposits.ts";
import { planKeyOf, writePaymentPlan } from "./deposit.ts";

export const HOLD_TEXT = {
  visitorCap: (cap: number) =>
    `You are already holding places that are not paid for yet (at most ${cap} at once). Please complete or let go of those registrations first, or contact us for a larger group.`,
  teamTooLarge: (cap: number) => `A team can have at most ${cap} athletes. Please register the rest as a second team.`,
} as const;

const REFERENCE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
export function newReference(): string {
  let s = "R";
  for (let i = 0; i < 7; i++) s += REFERENCE_ALPHABET[randomInt(REFERENCE_ALPHABET.length)];
  return s;
}

/** Who is holding: the visitor's hashes, and the references their session made (a form id is only reused by its maker). */
export interface Visitor {
  holder: Holder;
  owned: string[];
}

export type HoldOutcome =
  /** Held (new, or the same form again): `clientSecret` is null when a code made it free (nothing to charge). */
  | { status: "held"; registration: Registration; clientSecret: string | null }
  /** Its payment is confirmed or being confirmed: nothing was changed (a re-post of a paid form lands here). */
  | { status: "settled"; registration: Registration };

/** What a registration of either kind asks of the hold. */
interface HoldSpec<P> {
  kind: repo.RegistrationKind;
  formSessionId: string;
  places: number;
  /** A discount code entered with the form. */
  code?: string;
  /** Pay in full, or a deposit now and the balance later (src/shared/registrations/deposits.ts). */
  plan?: PaymentPlan;
  /** The answer when fewer than `places` are left. */
  fullMessage(left: number): string;
  /** What the rows are written from, read before the lock (the package's or the team's price as stored now). */
  prepare(db: Db): Promise<P>;
  /** Writes the pending rows (new, or the same form's row again, at `version`) under the locks; returns the row's id and list price. */
  write(trx: Knex.Transaction, prepared: P, ctx: { current: Registration | undefined; reference: string; now: Date; reservedUntil: Date; version: number }): Promise<{ id: number; listCents: number }>;
}

/** What a registration pays for, to tell whether a change makes a new version. */
function paidFor(r: Registration, code: string | undefined): string {
  return JSON.stringify([r.packageCode, [...r.dayIds].sort((a, b) => a - b), r.places, r.listPriceCents, r.amountCents, code ?? null]);
}

const ownedBy = (r: Registration, visitor: Visitor) => visitor.owned.includes(r.reference) || r.holderSession === visitor.holder.session;

/**
 * Holds a registration's places (or holds the same registration again when its form comes back), then obtains its
 * PaymentIntent. One transaction (lock order: src/registrations/core/repository.ts) checks the closing time, the places left,
 * the visitor's cap and the code, reads the registration under its lock, and refuses to change one whose payment is
 * settled; a payment being confirmed at Stripe is checked first, outside the transaction. Then, outside it, the one
 * PaymentIntent for the amount and version just written.
 */
async function hold<P>(deps: RegistrationDeps, event: EventDetail, visitor: Visitor, spec: HoldSpec<P>, onHeld: (reference: string) => void): Promise<HoldOutcome> {
  const earlier = await repo.findByFormSession(deps.db, spec.formSessionId);
  if (earlier && (!ownedBy(earlier, visitor) || earlier.eventId !== event.id || earlier.kind !== spec.kind)) {
    throw new DomainError("conflict", REGISTRATION_ERRORS.formExpired);
  }
  if (earlier && (isSettled(earlier.status) || (await paymentUnderWay(deps, earlier.reference)))) {
    return settled(deps.db, earlier.reference);
  }
  await refuseWhenFull(deps, event, spec, earlier);
  const prepared = await spec.prepare(deps.db);

  // Decided with the other holds queued for this event, in one transaction that locks the event first (group commit:
  // src/db/rowQueue.ts); this work runs in its own savepoint there, after the earlier holds of its batch. A hold with a
  // code is decided alone: its code's row is shared by every event, and a batch would keep it locked for all its holds.
  const lockTheEvent = (trx: Knex.Transaction) => repo.lockEvent(trx, event.id);
  const queued = <T>(work: (trx: Knex.Transaction) => Promise<T>, opts: { atHead: () => Promise<void> }) =>
    spec.code ? queuedLockingTransaction(deps.db, repo.eventKey(event.id), work, opts) : batchedLockingTransaction(deps.db, repo.eventKey(event.id), lockTheEvent, work, opts);
  const written = await queued(async (trx): Promise<{ reference: string; settled: boolean }> => {
    const now = deps.clock();
    const locked = await repo.lockEvent(trx, event.id);
    if (!locked) throw new DomainError("not_found", REGISTRATION_ERRORS.closed);
    const code = spec.code ? await lockCodeNamed(trx, spec.code) : undefined;
    const current = await repo.lockByFormSession(trx, spec.formSessionId);
    if (current && (!ownedBy(current, visitor) || current.eventId !== event.id || current.kind !== spec.kind)) {
      throw new DomainError("conflict", REGISTRATION_ERRORS.formExpired);
    }
    if (current && isSettled(current.status)) return { reference: current.reference, settled: true };

    const closesAt = registrationClosingTime(toDate(locked.registration_closes_at), toDate(locked.start_date)!);
    if (closesAt.getTime() <= now.getTime()) throw new DomainError("conflict", REGISTRATION_ERRORS.closed);
    if (spec.kind === "team" && spec.places > deps.limits.maxTeamAthletes) throw new DomainError("invalid", HOLD_TEXT.teamTooLarge(deps.limits.maxTeamAthletes));
    const free = Number(locked.capacity) - (await placesTaken(trx, event.id, now, current?.id));
    // Less the places the waiting list keeps back; a live hold keeps its own (docs/operators.md: Waiting list).
    const left = await placesForSale(trx, event.id, free, now, current && holdIsLive(current, now) ? current.places : 0);
    // A hint only (atHead reads again before refusing): a batch run again, or this work's savepoint undone, leaves it low at worst.
    freeAfterLastHold(deps.db).set(event.id, left < spec.places ? left : left - spec.places);
    if (left < spec.places) throw new DomainError("conflict", spec.fullMessage(Math.max(0, left)));
    const held = await repo.placesHeldBy(trx, visitor.holder, now, current?.id);
    const cap = deps.limits.maxHeldPlacesPerVisitor;
    if (held.session + spec.places > cap || held.address + spec.places > cap) throw new DomainError("conflict", HOLD_TEXT.visitorCap(cap));

    const reference = current?.reference ?? newReference();
    // A waiting-list offer's hold keeps its longer time when its form is submitted.
    const reservedUntil = new Date(Math.max(now.getTime() + HOLD_MINUTES * 60_000, current && holdIsLive(current, now) ? current.reservedUntil!.getTime() : 0));
    if (!current) {
      // A new registration: version 1, the code entered with the form (if any) priced on the list price.
      const { id, listCents } = await spec.write(trx, prepared, { current, reference, now, reservedUntil, version: 1 });
      let amountCents = listCents;
      if (code) await repo.setAmount(trx, id, (amountCents = (await holdUse(trx, code, { id, eventId: event.id, kind: spec.kind, listPriceCents: listCents }, now)).finalCents), 1, now);
      await writePaymentPlan(trx, id, locked, spec.plan ?? "full", amountCents, spec.places, now, deps.site.brandName);
      return { reference, settled: false };
    }
    // The same form again: written anew; a change to what it pays for makes a new version.
    const before = paidFor(current, (await repo.redemptionOf(trx, current.id))?.code) + planKeyOf(current);
    if (!(await repo.transition(trx, current.id, "hold", now))) throw new DomainError("conflict", REGISTRATION_ERRORS.formExpired);
    const { listCents } = await spec.write(trx, prepared, { current, reference, now, reservedUntil, version: current.version });
    const after = (await repo.findByReference(trx, reference))!;
    // The code entered with this form, or the one the registration already held, priced at the new list price.
    const amountCents = code ? (await holdUse(trx, code, after, now)).finalCents : await repriceHeldUse(trx, after.id, holdIsLive(current, now), listCents, now);
    const planKey = await writePaymentPlan(trx, after.id, locked, spec.plan ?? "full", amountCents, spec.places, now, deps.site.brandName);
    const changed = before !== paidFor({ ...after, amountCents }, (await repo.redemptionOf(trx, after.id))?.code) + planKey;
    await repo.setAmount(trx, after.id, amountCents, changed ? current.version + 1 : current.version, now);
    return { reference, settled: false };
  }, {
    // Queued while the event filled up: when this process's last decision left fewer places than asked for, a cheap
    // read at the head of the queue answers "sold out" without taking the lock.
    atHead: async () => {
      if ((freeAfterLastHold(deps.db).get(event.id) ?? Infinity) < spec.places) await refuseWhenFull(deps, event, spec, earlier);
    },
  });
  if (written.settled) return settled(deps.db, written.reference);
  // From here the visitor owns the hold, so a retry of the same form reuses it whatever happens next.
  onHeld(written.reference);
  const registration = (await repo.findByReference(deps.db, written.reference))!;
  try {
    return { status: "held", registration, clientSecret: await preparePayment(deps, registration) };
  } catch (err) {
    return paymentSetupFailed(deps, registration, err);
  }
}

/** Places left after this process's last locked hold decision, per event: a hint for the queue's head, never a decision. */
const freeAfter = new WeakMap<Db, Map<number, number>>();
function freeAfterLastHold(db: Db): Map<number, number> {
  let m = freeAfter.get(db);
  if (!m) freeAfter.set(db, (m = new Map<number, number>()));
  return m;
}

/**
 * A cheap read before the event's queue (and again at its head, see hold): when the event has fewer free places than asked for, "sold out" is answered
 * at once instead of after every hold queued for the lock. It only refuses what the locked decision would refuse
 * (that one counts the waiting list too); a place freed meanwhile goes to the next visitor, as if this one had come a
 * moment earlier. A form whose registration appeared meanwhile (a double submit) is left to the locked decision.
 */
async function refuseWhenFull<P>(deps: RegistrationDeps, event: EventDetail, spec: HoldSpec<P>, earlier: Registration | undefined): Promise<void> {
  const now = deps.clock();
  // The locked decision gives these answers first.
  if (event.registrationClosesAt.getTime() <= now.getTime() || (spec.kind === "team" && spec.places > deps.limits.maxTeamAthletes)) return;
  const free = await placesLeft(deps.db, event.id, now, earlier?.id);
  if (free >= spec.places) return;
  if (!earlier && (await repo.findByFormSession(deps.db, spec.formSessionId))) return;
  throw new DomainError("conflict", spec.fullMessage(free));
}

async function settled(db: Db, reference: string): Promise<HoldOutcome> {
  return { status: "settled", registration: (await repo.findByReference(db, reference))! };
}

/**
 * The PaymentIntent could not be set up. When Stripe shows the payment under way (the visitor paid in another tab
 * meanwhile), that payment decides; otherwise the hold gives its places back at once, unless it changed meanwhile.
 */
async function paymentSetupFailed(deps: RegistrationDeps, r: Registration, err: unknown): Promise<HoldOutcome> {
  if (isRequestInFlight(err)) throw new DomainError("conflict", PAYMENT_STILL_CONFIRMING);
  if (await paymentUnderWay(deps, r.reference).catch(() => false)) return settled(deps.db, r.reference);
  deps.logger.error({ err: (err as Error).message, reference: r.reference }, "could not set up the registration's PaymentIntent; hold released");
  await queuedLockingTransaction(deps.db, repo.eventKey(r.eventId), async (trx) => {
    await repo.lockEvent(trx, r.eventId);
    const current = await repo.lockByReference(trx, r.reference);
    if (current?.version === r.version) await repo.transition(trx, current.id, "cancelHold", deps.clock(), { reserved_until: null });
  }).catch(() => undefined);
  // A database that stopped answering is the error page's 503; anything else is Stripe's side.
  if (isUnavailable(err)) throw err;
  throw new DomainError("upstream_failed", PAYMENT_SETUP_ERROR.message);
}

/** Step 1 -> step 2: one place at the event's package price as stored now, never anything the browser sent. */
export function holdIndividual(deps: RegistrationDeps, event: EventDetail, data: IndividualRegistration, visitor: Visitor, opts: { code?: string; plan?: PaymentPlan; onHeld: (reference: string) => void }): Promise<HoldOutcome> {
  return hold(
    deps,
    event,
    visitor,
    {
      kind: "individual",
      formSessionId: data.formSessionId,
      places: 1,
      code: opts.code,
      plan: opts.plan,
      fullMessage: () => REGISTRATION_ERRORS.soldOut,
      async prepare(db) {
        const priceCents = await repo.packagePriceCents(db, event.id, data.registrationType);
        const pkg = findPackage(event, data.registrationType);
        if (priceCents === undefined || !pkg) throw new DomainError("invalid", REGISTRATION_ERRORS.packageUnknown);
        return { priceCents, packageLabel: pkg.label };
      },
      async write(trx, { priceCents, packageLabel }, { current, reference, now, reservedUntil, version }) {
        const h: repo.IndividualHold = { eventId: event.id, packageLabel, priceCents, reservedUntil, data };
        if (!current) return { id: await repo.insertIndividual(trx, reference, h, visitor.holder, now), listCents: h.priceCents };
        await repo.rewriteIndividual(trx, current.id, h, visitor.holder, version, now);
        return { id: current.id, listCents: h.priceCents };
      },
    },
    opts.onHeld,
  );
}

/** A coach's team: one place per athlete at the event's team price as stored when it is posted. */
export function holdTeam(deps: RegistrationDeps, event: EventDetail, data: TeamRegistration, visitor: Visitor, opts: { code?: string; plan?: PaymentPlan; onHeld: (reference: string) => void }): Promise<HoldOutcome> {
  const places = data.athletes.length;
  return hold(
    deps,
    event,
    visitor,
    {
      kind: "team",
      formSessionId: data.formSessionId,
      places,
      code: opts.code,
      plan: opts.plan,
      fullMessage: (left) => TEAM_TEXT.notEnoughPlaces(left, places),
      async prepare(db) {
        const teamPriceCents = await repo.teamPriceCents(db, event.id);
        if (!Number.isInteger(teamPriceCents) || teamPriceCents <= 0) throw new DomainError("conflict", TEAM_TEXT.registrationErrorDefault);
        return teamPriceCents;
      },
      async write(trx, teamPriceCents, { current, reference, now, reservedUntil, version }) {
        const h: repo.TeamHold = { eventId: event.id, teamPriceCents, dayIds: event.days.map((d) => d.id), reservedUntil, data };
        if (!current) return { id: await repo.insertTeam(trx, reference, h, visitor.holder, now), listCents: teamPriceCents * places };
        await repo.rewriteTeam(trx, current.id, h, visitor.holder, version, now);
        return { id: current.id, listCents: teamPriceCents * places };
      },
    },
    opts.onHeld,
  );
}
