import type { Knex } from "knex";
import { toDate } from "../../db/rows.ts";
import { queuedLockingTransaction } from "../../db/rowQueue.ts";
import { DomainError } from "../../errors.ts";
import { keptPaymentIds, lockPayments, moneyOf, type GroupMoney } from "../../payments/core.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import type { ChangePhase } from "../../shared/registrations/changePolicy.ts";
import { CHANGE_TEXT, MANAGE_TEXT } from "../../shared/registrations/changeTexts.ts";
import type { RegistrationDeps } from "./deps.ts";
import { permissions, type Permissions } from "./permissions.ts";
import { isRegistered } from "./states.ts";
import { eventKey, lockCode, lockEvent } from "./locks.ts";
import type { Registration, RegistrationAthlete, RegistrationKind } from "./registration.ts";
import { changesOf, findChange, lockChangeRow, type RegistrationChange } from "./tables/changes.ts";
import { idsOf, lockByReference, referenceOf } from "./tables/registrations.ts";

/**
 * The opening of every use case that changes a registration (the manage link's changes, a family's link), written
 * once. The lock order of the registration wing (src/registrations/core/locks.ts):
 *
 *   1. the payments that hold the registration's money, in id order, when the use case refunds (settlement locks a
 *      payment before the rows it pays for);
 *   2. the event's row (queued in this process on the event's key: src/db/rowQueue.ts);
 *   3. the discount code's row, when the use case decides on it (settlement and holds);
 *   4. the registration's row;
 *   5. a change's row (src/registrations/changes/), when the use case settles one.
 *
 * After the locks the registration is read whole and checked: of this event, of this kind, the permission the use
 * case needs at this instant, the version the form was shown for, and no paid change waiting for its payment.
 */

/** Why a registration may not go through this use case now, in the registrant's words; undefined: it may. */
export type Permit = (allowed: Permissions, r: Registration) => string | undefined;

/** The permits most use cases need. */
export const PERMIT: { open: Permit; phase: (shown: ChangePhase) => Permit; active: Permit } = {
  /** Before the freeze date: every change. */
  open: (allowed) => (allowed.phase === "open" ? undefined : allowed.reason),
  /** The phase the form was shown in (every detail, or the medical notes only) is still the phase now. */
  phase: (shown: ChangePhase): Permit => (allowed) => (allowed.phase === "closed" ? allowed.reason : allowed.phase !== shown ? MANAGE_TEXT.deadlinePassed : undefined),
  /** A paid registration (a family's link: its signature and its link). */
  active: (_allowed, r) => (isRegistered(r.status) ? undefined : "This registration is not active."),
};

export interface RegistrationNeed {
  /** The event of the page or link the request came through: the registration must be of it. */
  event: EventDetail;
  kind?: RegistrationKind;
  permit: Permit;
  /** The version the form was shown for: refused as stale when the registration changed since (another tab). */
  shownVersion?: number;
  /** The use case refunds: the registration's payments are locked first and `money` is read under the locks. */
  money?: boolean;
  /** Refused while one of the registration's paid changes waits for its payment (whatever is paid must match what is registered). */
  noPendingChange?: boolean;
  /** A family's link: the athlete at this position, still on the team (a team's registration). */
  athletePosition?: number;
}

export interface Loaded {
  trx: Knex.Transaction;
  now: Date;
  /** The event's row as locked (its freeze date, capacity...). */
  eventRow: Record<string, unknown>;
  r: Registration;
  allowed: Permissions;
  /** The registration's money under the payments' locks (need.money). */
  money: GroupMoney;
  /** need.athletePosition's athlete. */
  athlete: RegistrationAthlete;
}

/**
 * Locks 2 to 4 (the event, the code when `code` says which, the registration) as the first statements of the caller's
 * transaction, or the statements after its payments' locks; the event's row and the registration as they now stand.
 */
export async function lockAggregate(trx: Knex.Transaction, eventId: number, reference: string, code?: (trx: Knex.Transaction, registrationId: number) => Promise<number | undefined>): Promise<{ eventRow: Record<string, unknown>; r: Registration } | undefined> {
  const eventRow = await lockEvent(trx, eventId);
  if (code) {
    const ids = await idsOf(trx, reference);
    const codeId = ids ? await code(trx, ids.id) : undefined;
    if (codeId !== undefined) await lockCode(trx, codeId);
  }
  const r = await lockByReference(trx, reference);
  return eventRow && r && r.eventId === eventId ? { eventRow, r } : undefined;
}

/**
 * Runs `work` in one transaction that takes the registration's locks in their order once (queued on the event's key
 * like every transaction of the event), reads the registration and checks what `need` asks; `work` gets what was
 * loaded. A refusal is a DomainError: `not_found` (no such registration of this event and kind, or no such athlete),
 * `conflict` (not permitted now, a stale form, a paid change waiting).
 */
export async function withRegistration<T>(deps: RegistrationDeps, reference: string, need: RegistrationNeed, work: (loaded: Loaded) => Promise<T>): Promise<T> {
  // Read before the transaction: which payments to lock first; under the locks the group is read again and compared.
  const locking = need.money ? keptPaymentIds(await moneyOf(deps.db, reference)) : [];
  const missing = need.athletePosition === undefined ? "No such registration" : "No such athlete";
  return queuedLockingTransaction(deps.db, eventKey(need.event.id), async (trx) => {
    if (locking.length > 0) await lockPayments(trx, locking);
    const now = deps.clock();
    const locked = await lockAggregate(trx, need.event.id, reference);
    if (!locked || (need.kind && locked.r.kind !== need.kind)) throw new DomainError("not_found", missing);
    const { eventRow, r } = locked;
    const athlete = need.athletePosition === undefined ? undefined : r.athletes.find((a) => a.position === need.athletePosition && a.withdrawnAt === null);
    if (need.athletePosition !== undefined && !athlete) throw new DomainError("not_found", missing);
    const allowed = permissions(r.status, need.event, toDate(eventRow.changes_freeze_at), now);
    const refused = need.permit(allowed, r);
    if (refused !== undefined) throw new DomainError("conflict", refused);
    const money = need.money ? await moneyOf(trx, reference) : undefined;
    const moneyMoved = money !== undefined && keptPaymentIds(money).join(",") !== locking.join(",");
    if ((need.shownVersion !== undefined && r.version !== need.shownVersion) || moneyMoved) throw new DomainError("conflict", MANAGE_TEXT.stale);
    if (need.noPendingChange && (await changesOf(trx, r.id, ["pending", "needs_review"])).length > 0) throw new DomainError("conflict", CHANGE_TEXT.pendingElsewhere);
    return work({ trx, now, eventRow, r, allowed, money: money!, athlete: athlete! });
  });
}

/**
 * A change's aggregate in a transaction that settles or ends the change (its payment's handler, its cancellation, the
 * sweep): locks 2, 4 and 5 (the event, the registration, the change's own row); everything as it now stands.
 */
export async function lockChange(trx: Knex.Transaction, id: number): Promise<{ change: RegistrationChange; r: Registration; eventRow: Record<string, unknown> } | undefined> {
  const plain = await findChange(trx, id);
  const reference = plain && (await referenceOf(trx, plain.registrationId));
  if (!plain || reference === undefined) return undefined;
  const locked = await lockAggregate(trx, plain.eventId, reference);
  const change = await lockChangeRow(trx, id);
  return locked && change ? { change, ...locked } : undefined;
}
