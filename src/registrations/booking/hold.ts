import type { Knex } from "knex";
import { lockingTransaction } from "../../db/transaction.ts";
import { isUniqueViolation } from "../../db/rows.ts";
import { isUnavailable } from "../../http/errors.ts";
import { DomainError } from "../../errors.ts";
import { admissionState, admitPlaces, countsPlaces, movePlaces, type Refusal } from "../../events/places.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import type { Db } from "../../db/knex.ts";
import { REGISTRATION_ERRORS, findPackage, type IndividualRegistration } from "../../shared/registrations/rules.ts";
import { TEAM_TEXT, type TeamRegistration } from "../../shared/registrations/teamRules.ts";
import { lockEvent } from "../core/locks.ts";
import { redemptionOf } from "../core/money/redemptions.ts";
import type { FamilyAthlete, Registration, RegistrationKind } from "../core/registration.ts";
import { familyPrice, NO_SIBLING_DISCOUNT, SIBLING_TEXT } from "../../shared/registrations/siblings.ts";
import { insertIndividual, insertTeam, rewriteIndividual, rewriteTeam, type IndividualHold, type TeamHold } from "../core/tables/formHolds.ts";
import { beginHold, lockVisitor, placesHeldAtBegin, placesHeldBy } from "../core/tables/holds.ts";
import { beginsInServer, type ServerBegin } from "../../db/serverBegins.ts";
import { findByFormSession, findByReference, lockByFormSession, lockByReference, setAmount, transition } from "../core/tables/registrations.ts";
import { isSettled } from "../core/states.ts";
import { holdIsLive, HOLD_MINUTES, REGISTRATION_KIND, type RegistrationDeps } from "../core/deps.ts";
import { codeNamed, holdUse, lockCodeNamed, priceBeforeUse, repriceHeldUse, shownDiscount, type ShownDiscount } from "../core/money/codes.ts";
import { admitWithCodeUse, takeUseLast, type CodeUse } from "../core/money/codeLast.ts";
import { PAYMENT_SETUP_ERROR, PAYMENT_STILL_CONFIRMING, paymentUnderWay, preparePayment } from "../core/money/payment.ts";
import { isRequestInFlight } from "../../payments/gateway.ts";
import { findLive, type PaymentRow } from "../../payments/repository.ts";
import { placesForSale } from "../waitlist/forSale.ts";
import { deferWrites } from "../../db/deferredWrites.ts";
import { isOfferHold } from "../waitlist/tables/rounds.ts";
import type { PaymentPlan } from "../../shared/registrations/deposits.ts";
import { planKeyOf, writePaymentPlan } from "../core/money/deposit.ts";
import { hasLapsedHolds, releaseLapsedNow } from "../core/lapse.ts";
import { HOLD_TEXT, newReference, type Visitor } from "../core/holding.ts";
import { samePost } from "./samePost.ts";

export type HoldOutcome =
  /**
   * Held (new, or the same form again): `clientSecret` is null when a code made it free (nothing to charge);
   * `discount`: when this hold made the registration, the code it holds as held (null: none); undefined when the
   * same form came back (read it: discountOf).
   */
  | { status: "held"; registration: Registration; clientSecret: string | null; discount: ShownDiscount | null | undefined }
  /** Its payment is confirmed or being confirmed: nothing was changed (a re-post of a paid form lands here). */
  | { status: "settled"; registration: Registration };

/** What a registration of either kind asks of the hold. */
interface HoldSpec<P> {
  kind: RegistrationKind;
  formSessionId: string;
  /** What the form says (its data, code and plan as one string): the same form posted twice at once is decided once (samePost.ts). */
  content: string;
  places: number;
  /** A discount code entered with the form. */
  code?: string;
  /** Pay in full, or a deposit now and the balance later (src/shared/registrations/deposits.ts). */
  plan?: PaymentPlan;
  /** The answer when fewer than `places` are left. */
  fullMessage(left: number): string;
  /**
   * What the rows are written from, before the lock: the package's or the team's price from the event as kept,
   * which every instance empties as soon as an operator's change is committed (src/events/version.ts).
   */
  prepare(): P;
  /**
   * Writes the pending rows (new, or the same form's row again, at `version`) under the locks; returns the row's id,
   * its list price and, for a new row, the registration as written.
   */
  write(trx: Knex.Transaction, prepared: P, ctx: { current: Registration | undefined; reference: string; now: Date; reservedUntil: Date; version: number }): Promise<{ id: number; listCents: number; written?: Registration }>;
}

/** What a registration pays for, to tell whether a change makes a new version. */
function paidFor(r: Registration, code: string | undefined): string {
  const family = r.athletes.map((a) => (a.family ? [a.family.packageCode, a.family.dayIds, a.family.listPriceCents, a.family.siblingDiscountCents] : null));
  return JSON.stringify([r.packageCode, [...r.dayIds].sort((a, b) => a - b), r.places, r.listPriceCents, r.amountCents, code ?? null, family]);
}

const ownedBy = (r: Registration, visitor: Visitor) => visitor.owned.includes(r.reference) || r.holderSession === visitor.holder.session;

/** The event could not admit the hold's places now (its count's statement changed no row): the caller finds out why. */
class NotAdmitted extends Error {
  /** Why, when the refusing statement said (MySQL); read apart otherwise. */
  constructor(readonly refusal?: Refusal) {
    super("not admitted");
  }
}

/** The form's id is taken: the form was posted before (or, rarely, the new reference was): looked at before deciding again. */
class FormPostedBefore extends Error {}

/** What the hold's transaction decided. */
interface Decided {
  reference: string;
  settled: boolean;
  /** A new registration as written, and its payment claimed in the same transaction (none when free or on a deposit plan). */
  written?: Registration;
  payment?: PaymentRow;
  /** A new registration's code as held (null: no code). */
  discount?: ShownDiscount | null;
}

/**
 * Holds a registration's places (or holds the same registration again when its form comes back), then obtains its
 * PaymentIntent. Before the transaction: what needs no lock (the form's row as a hint, the price, the event's closing
 * time and a cheap "sold out"). In one short transaction, in the lock order (docs/architecture.md): the visitor's
 * rows (their cap), the code's row, the registration's row, the rows written, and LAST the event's count moved by one
 * conditional statement (src/events/places.ts), so the count's row is locked only from that statement to COMMIT. A
 * new registration's code is read without a lock and its use taken last, with the places (codeLast.ts): its row is
 * shared by every family that enters it. No lock is shared by the visitors of an event other than that last
 * statement's. Then, outside it, the PaymentIntent.
 */
async function hold<P>(deps: RegistrationDeps, event: EventDetail, visitor: Visitor, spec: HoldSpec<P>, onHeld: (reference: string) => void): Promise<HoldOutcome> {
  const post = { form: `${event.id}\n${spec.kind}\n${spec.formSessionId}`, who: `${visitor.holder.session}\n${visitor.holder.address}`, content: spec.content };
  const { outcome, joined } = samePost(deps, post, () => holdOnce(deps, event, visitor, spec, onHeld));
  if (!joined) return outcome;
  // This request's session learns of the hold as the first's did.
  const answer = await outcome;
  if (answer.status === "held") onHeld(answer.registration.reference);
  return answer;
}

/** One post's hold, decided (see hold). */
async function holdOnce<P>(deps: RegistrationDeps, event: EventDetail, visitor: Visitor, spec: HoldSpec<P>, onHeld: (reference: string) => void): Promise<HoldOutcome> {
  /** The form's row, when it was posted before: someone else's, or paid (or being paid), decides the answer. */
  const postedBefore = async (): Promise<HoldOutcome | undefined> => {
    const earlier = await findByFormSession(deps.db, spec.formSessionId);
    if (earlier && (!ownedBy(earlier, visitor) || earlier.eventId !== event.id || earlier.kind !== spec.kind)) {
      throw new DomainError("conflict", REGISTRATION_ERRORS.formExpired);
    }
    if (earlier && (isSettled(earlier.status) || (await paymentUnderWay(deps, earlier.reference)))) return settled(deps.db, earlier.reference);
    return undefined;
  };
  // A form posted for the first time (nearly every hold) is not looked for: its insert finds its id taken otherwise.
  // Once registration has closed it is looked for first, so that a paid form posted again still says it is paid.
  const closed = event.registrationClosesAt.getTime() <= deps.clock().getTime();
  let looked = closed;
  if (looked) {
    const answer = await postedBefore();
    if (answer) return answer;
  }
  if (closed) throw new DomainError("conflict", REGISTRATION_ERRORS.closed, "registration_closed");
  if (spec.kind === "team" && spec.places > deps.limits.maxTeamAthletes) throw new DomainError("invalid", HOLD_TEXT.teamTooLarge(deps.limits.maxTeamAthletes));
  const prepared = spec.prepare();

  let decided: Decided | undefined;
  let viaLine = false;
  // Each turn either decides, or removes what kept the count from admitting (a lapsed hold, an event never counted).
  for (let turn = 0; !decided; ) {
    try {
      // READ COMMITTED (every MySQL connection's level, src/db/knex.ts): under REPEATABLE READ the lock on a form id
      // not yet used is a gap lock, and holds inserting into the same gap deadlock each other (measured: most of a
      // crowd's holds failed).
      // A form posted for the first time begins, on MySQL, with the visitor's lock and cap read in the same round trip.
      const now = deps.clock();
      const begin = !looked && beginsInServer(deps.db) ? beginHold(visitor.holder, now) : undefined;
      decided = await lockingTransaction(deps.db, (trx) => decide(deps, trx, event, visitor, spec, prepared, { viaLine, looked, now, begin }), begin && { beginWith: begin });
    } catch (err) {
      if (err instanceof FormPostedBefore && !looked) {
        looked = true;
        const answer = await postedBefore();
        if (answer) return answer;
        continue;
      }
      if (!(err instanceof NotAdmitted)) throw err;
      const now = deps.clock();
      const { refusal } = err;
      const state = refusal ?? (await admissionState(deps.db, event.id));
      if (turn < 3 && !state.counted) await countEvent(deps.db, event.id);
      else if (turn < 3 && state.lineWaits && !viaLine) viaLine = true;
      else if (turn < 3 && (refusal ? refusal.lapsed : await hasLapsedHolds(deps.db, event.id, now))) await releaseLapsedNow(deps.db, event.id, now);
      else throw new DomainError("conflict", spec.fullMessage(Math.max(0, state.free)), "sold_out");
      turn++;
    }
  }
  if (decided.settled) return settled(deps.db, decided.reference);
  // From here the visitor owns the hold, so a retry of the same form reuses it whatever happens next.
  onHeld(decided.reference);
  const registration = decided.written ?? (await findByReference(deps.db, decided.reference))!;
  try {
    return { status: "held", registration, discount: decided.discount, clientSecret: await preparePayment(deps, registration, decided.payment) };
  } catch (err) {
    return paymentSetupFailed(deps, registration, err);
  }
}

/** The hold's transaction (see hold). `viaLine`: the event's line waits, so its kept-back places are counted under the event's lock. */
async function decide<P>(deps: RegistrationDeps, trx: Knex.Transaction, event: EventDetail, visitor: Visitor, spec: HoldSpec<P>, prepared: P, opts: { viaLine: boolean; looked: boolean; now: Date; begin?: ServerBegin }): Promise<Decided> {
  const { now, begin } = opts;
  // Begun by begin_hold: the visitor's rows are locked and their places read already (none is the form's: it is new).
  const heldAtBegin = begin ? placesHeldAtBegin(begin) : undefined;
  if (!begin) await lockVisitor(trx, visitor.holder);
  // A form not looked for is taken as new: its code's use is taken last (codeLast.ts), so the code is read unlocked here.
  const codeLast = !opts.looked;
  const code = spec.code ? await (codeLast ? codeNamed(trx, spec.code) : lockCodeNamed(trx, spec.code)) : undefined;
  // Not looked for yet: taken as new, the registration's unique form id refuses the insert otherwise (FormPostedBefore).
  const current = opts.looked ? await lockByFormSession(trx, spec.formSessionId) : undefined;
  if (current && (!ownedBy(current, visitor) || current.eventId !== event.id || current.kind !== spec.kind)) {
    throw new DomainError("conflict", REGISTRATION_ERRORS.formExpired);
  }
  if (current && isSettled(current.status)) return { reference: current.reference, settled: true };
  const held = heldAtBegin ?? (await placesHeldBy(trx, visitor.holder, now, current?.id));
  const cap = deps.limits.maxHeldPlacesPerVisitor;
  if (held.session + spec.places > cap || held.address + spec.places > cap) throw new DomainError("conflict", HOLD_TEXT.visitorCap(cap));

  const reference = current?.reference ?? newReference();
  const live = current !== undefined && holdIsLive(current, now);
  // A waiting-list offer's hold keeps its longer time when its form is submitted.
  const reservedUntil = new Date(Math.max(now.getTime() + HOLD_MINUTES * 60_000, live ? current.reservedUntil!.getTime() : 0));
  let written: Registration | undefined;
  let payment: PaymentRow | undefined;
  let discount: ShownDiscount | null | undefined;
  let use: CodeUse | undefined;
  if (!current) {
    // A new registration: version 1, the code entered with the form (if any) priced on the list price. Its athletes
    // and days go with the statement that ends the transaction (src/db/deferredWrites.ts): the admission's call, or
    // the COMMIT on the line's path; not with a code, whose admission (admit_places_with_code) takes no writes.
    if (!code) deferWrites(trx);
    const made = await spec.write(trx, prepared, { current, reference, now, reservedUntil, version: 1 }).catch((err: unknown) => {
      throw isUniqueViolation(err) && !opts.looked ? new FormPostedBefore() : err;
    });
    const { id, listCents } = made;
    let amountCents = listCents;
    discount = null;
    if (code) {
      const r = { id, eventId: event.id, kind: spec.kind, listPriceCents: listCents };
      const amount = codeLast ? priceBeforeUse(code, r, now) : await holdUse(trx, code, r, now);
      if (codeLast) use = { code, registrationId: id, eventId: event.id, kind: spec.kind, offCents: amount.offCents };
      await setAmount(trx, id, (amountCents = amount.finalCents), 1, now);
      discount = shownDiscount(code, amount, listCents);
    }
    const planKey = await writePaymentPlan(trx, id, event, spec.plan ?? "full", amountCents, spec.places, now, deps.site.brandName, { newRow: true });
    // Paid in full: the row is as written (a deposit's terms and Customer are written apart and read back after COMMIT),
    // and its payment is claimed here, so that after COMMIT only the PaymentIntent is made.
    if (planKey === "full" && made.written) {
      written = { ...made.written, amountCents };
      if (amountCents > 0) payment = await deps.paymentCore.claimIn(trx, { kind: REGISTRATION_KIND, reference, amountCents, version: written.version });
    }
  } else {
    // The same form again: written anew; a change to what it pays for makes a new version.
    const before = paidFor(current, (await redemptionOf(trx, current.id))?.code) + planKeyOf(current);
    if (!(await transition(trx, current.id, "hold", now))) throw new DomainError("conflict", REGISTRATION_ERRORS.formExpired);
    const { listCents } = await spec.write(trx, prepared, { current, reference, now, reservedUntil, version: current.version });
    const after = (await findByReference(trx, reference))!;
    // The code entered with this form, or the one the registration already held, priced at the new list price.
    const amountCents = code ? (await holdUse(trx, code, after, now)).finalCents : await repriceHeldUse(trx, after.id, live, listCents, now);
    const planKey = await writePaymentPlan(trx, after.id, event, spec.plan ?? "full", amountCents, spec.places, now, deps.site.brandName);
    const changed = before !== paidFor({ ...after, amountCents }, (await redemptionOf(trx, after.id))?.code) + planKey;
    await setAmount(trx, after.id, amountCents, changed ? current.version + 1 : current.version, now);
  }
  // Last: the count moves by what this form takes beyond what its row counted already (the same form again moves it by the difference).
  const counted = current && countsPlaces(current.status) ? current.places : 0;
  const more = spec.places - counted;
  if (opts.viaLine) {
    if (use) await takeUseLast(trx, use, now);
    if (!(await admitPastTheLine(trx, event.id, spec.places, counted, live ? current.places : 0, now))) throw new NotAdmitted();
  } else if (more > 0) {
    if (use) {
      if (!(await admitWithCodeUse(trx, more, use, now))) throw new NotAdmitted();
    } else {
      const admission = await admitPlaces(trx, event.id, more, now);
      if (!admission.admitted) throw new NotAdmitted(admission.refusal);
    }
  } else {
    if (use) await takeUseLast(trx, use, now);
    await movePlaces(trx, event.id, more);
  }
  return { reference, settled: false, written, payment, discount };
}

/**
 * While the event's line waits, its kept-back places (placesForSale) are decided under the event's lock: the rare
 * path, once an event sold out and freed places again. `counted`: the places the form's row counts already;
 * `ownLive`: the places its live hold keeps as its own (an offer's, say).
 */
async function admitPastTheLine(trx: Knex.Transaction, eventId: number, places: number, counted: number, ownLive: number, now: Date): Promise<boolean> {
  const locked = (await lockEvent(trx, eventId))!;
  const free = Number(locked.capacity) - (Number(locked.places_taken) - counted);
  if ((await placesForSale(trx, eventId, free, now, ownLive)) < places) return false;
  await movePlaces(trx, eventId, places - counted);
  return true;
}

/** An event made without a count (by a tool that wrote the events table only) is counted from its rows. */
async function countEvent(db: Db, eventId: number): Promise<void> {
  await db.transaction((trx) => lockEvent(trx, eventId));
}

async function settled(db: Db, reference: string): Promise<HoldOutcome> {
  return { status: "settled", registration: (await findByReference(db, reference))! };
}

/**
 * The PaymentIntent could not be set up. When Stripe shows the payment under way (the visitor paid in another tab
 * meanwhile), that payment decides; otherwise the hold gives its places back at once, unless it changed meanwhile or
 * a PaymentIntent of it was made already: the same form posted twice (a double submit) shares one hold, and the other
 * request may have handed that PaymentIntent to the browser, which pays it. A database that stopped answering is the
 * error page's 503 and leaves the hold as it is: the form posted again takes it up, and it lapses otherwise.
 */
async function paymentSetupFailed(deps: RegistrationDeps, r: Registration, err: unknown): Promise<HoldOutcome> {
  if (isRequestInFlight(err)) throw new DomainError("conflict", PAYMENT_STILL_CONFIRMING);
  if (isUnavailable(err)) throw err;
  if (await paymentUnderWay(deps, r.reference).catch(() => false)) return settled(deps.db, r.reference);
  const released = await lockingTransaction(deps.db, async (trx) => {
    const current = await lockByReference(trx, r.reference);
    if (current?.version !== r.version || (await findLive(trx, REGISTRATION_KIND, r.reference))?.providerPaymentId) return false;
    return transition(trx, current.id, "cancelHold", deps.clock(), { reserved_until: null });
  }).catch(() => false);
  deps.logger.error({ err: (err as Error).message, reference: r.reference }, `could not set up the registration's PaymentIntent; hold ${released ? "released" : "kept"}`);
  throw new DomainError("upstream_failed", PAYMENT_SETUP_ERROR.message);
}

/**
 * Step 1 -> step 2: one place per athlete at the event's package prices as stored now, never anything the browser
 * sent. A waiting-list offer's registration keeps the places it was offered.
 */
export function holdIndividual(deps: RegistrationDeps, event: EventDetail, data: IndividualRegistration, visitor: Visitor, opts: { code?: string; plan?: PaymentPlan; onHeld: (reference: string) => void }): Promise<HoldOutcome> {
  const places = 1 + (data.siblings?.length ?? 0);
  return hold(
    deps,
    event,
    visitor,
    {
      kind: "individual",
      formSessionId: data.formSessionId,
      content: JSON.stringify([data, opts.code ?? null, opts.plan ?? null]),
      // A family's places are admitted together by the one statement, or none of them (a family is not split).
      places,
      code: opts.code,
      plan: opts.plan,
      fullMessage: () => REGISTRATION_ERRORS.soldOut,
      prepare(): { priceCents: number; packageLabel: string; family?: FamilyAthlete[] } {
        const pkg = findPackage(event, data.registrationType);
        if (!pkg) throw new DomainError("invalid", REGISTRATION_ERRORS.packageUnknown);
        if (!data.siblings?.length) return { priceCents: pkg.priceCents, packageLabel: pkg.label };
        return { ...familyHold(event, data), packageLabel: pkg.label };
      },
      async write(trx, { priceCents, packageLabel, family }, { current, reference, now, reservedUntil, version }) {
        // A waiting-list offer's places stay what was offered: its form registers exactly that many athletes.
        if (current && current.places !== places && (await isOfferHold(trx, current.id))) throw new DomainError("conflict", SIBLING_TEXT.offerFixed(current.places));
        const h: IndividualHold = { eventId: event.id, packageLabel, priceCents, reservedUntil, data, family };
        if (!current) {
          const written = await insertIndividual(trx, reference, h, visitor.holder, now);
          return { id: written.id, listCents: h.priceCents, written };
        }
        await rewriteIndividual(trx, current.id, h, visitor.holder, version, now);
        return { id: current.id, listCents: h.priceCents };
      },
    },
    opts.onHeld,
  );
}

/** Siblings: each athlete's package price as stored now, the event's sibling discount off each additional athlete. */
function familyHold(event: EventDetail, data: IndividualRegistration): { priceCents: number; family: FamilyAthlete[] } {
  const entries = [data, ...(data.siblings ?? [])].map((a) => {
    const pkg = findPackage(event, a.registrationType);
    if (!pkg) throw new DomainError("invalid", REGISTRATION_ERRORS.packageUnknown);
    return { pkg, dayIds: a.dayIds };
  });
  const price = familyPrice(entries.map((e) => e.pkg.priceCents), event.siblingDiscount ?? NO_SIBLING_DISCOUNT);
  const family = entries.map((e, i) => ({ packageCode: e.pkg.code, packageLabel: e.pkg.label, listPriceCents: e.pkg.priceCents, siblingDiscountCents: price.lines[i]!.discountCents, dayIds: e.dayIds }));
  return { priceCents: price.totalCents, family };
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
      content: JSON.stringify([data, opts.code ?? null, opts.plan ?? null]),
      places,
      code: opts.code,
      plan: opts.plan,
      fullMessage: (left) => TEAM_TEXT.notEnoughPlaces(left, places),
      prepare() {
        const teamPriceCents = event.teamPriceCents;
        if (!Number.isInteger(teamPriceCents) || teamPriceCents <= 0) throw new DomainError("conflict", TEAM_TEXT.registrationErrorDefault);
        return teamPriceCents;
      },
      async write(trx, teamPriceCents, { current, reference, now, reservedUntil, version }) {
        const h: TeamHold = { eventId: event.id, teamPriceCents, dayIds: event.days.map((d) => d.id), reservedUntil, data };
        if (!current) {
          const written = await insertTeam(trx, reference, h, visitor.holder, now);
          return { id: written.id, listCents: teamPriceCents * places, written };
        }
        await rewriteTeam(trx, current.id, h, visitor.holder, version, now);
        return { id: current.id, listCents: teamPriceCents * places };
      },
    },
    opts.onHeld,
  );
}
