/**
 * Events created and changed by an operator (`npm run events`): the whole change checked with the site's event schema
 * (src/shared/events/editing.ts) against the event as it would be stored, then written in one transaction that locks
 * the event first, uses the waiting list's capacity rule (changeLockedCapacity) and bumps the events' version, so
 * every app instance shows it at its next request. A refusal throws EventEditRefused and writes nothing.
 */
import { toSiblingDiscount } from "./repository.ts";
import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { toDate } from "../db/rows.ts";
import { toText } from "../shared/toText.ts";
import { queuedLockingTransaction } from "../db/rowQueue.ts";
import { lockingTransaction } from "../db/transaction.ts";
import { eventKey, lockEventForChange } from "../registrations/core/locks.ts";
import { changeLockedCapacity } from "../registrations/waitlist/capacity.ts";
import { bumpEventsVersion } from "./version.ts";
import { packageCodeOf } from "./repository.ts";
import {
  dateTextFor,
  dayLabel,
  daysOf,
  eventRefusal,
  type EditedEvent,
  type EditedPackage,
  type EventChanges,
} from "../shared/events/editing.ts";
import { DEFAULT_TIME_ZONE, startOfDayIn } from "../shared/timeZones.ts";
import { defaultPackageLabel, packageDayCount } from "../shared/registrations/packages.ts";
import { dateFormat } from "../shared/dateFormats.ts";

export class EventEditRefused extends Error {}

type Row = Record<string, unknown>;

const isoDay = (v: unknown) => toDate(v)!.toISOString().slice(0, 10);
/** The calendar day, in the event's zone, of an instant an operator set as the start of that day. */
const dayIn = (at: Date, timeZone: string) => dateFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);
const utcDay = (day: string) => new Date(`${day}T00:00:00Z`);

/** An event as the command edits it, read inside the transaction. */
async function readEdited(conn: Knex.Transaction, row: Row): Promise<EditedEvent> {
  const packages: Row[] = await conn<Row>("event_packages").where({ event_id: row.id }).orderBy(["sort_order", "id"]);
  const timeZone = toText(row.time_zone) || DEFAULT_TIME_ZONE;
  const closes = toDate(row.registration_closes_at);
  const freeze = toDate(row.changes_freeze_at);
  return {
    title: toText(row.title),
    startDate: isoDay(row.start_date),
    endDate: isoDay(row.end_date),
    dateText: toText(row.date_text),
    timeZone,
    location: toText(row.location),
    capacity: Number(row.capacity),
    packages: packages.map((p) => ({ code: packageCodeOf(p), label: toText(p.label), priceCents: Number(p.price_cents), dayCount: Number(p.day_count) })),
    teamPriceCents: Number(row.team_price_cents),
    registrationClosesOn: closes ? dayIn(closes, timeZone) : null,
    changesFreezeOn: freeze ? dayIn(freeze, timeZone) : null,
    listed: Boolean(Number(row.listed)),
    deposit: { kind: (toText(row.deposit_kind ?? "none") || "none") as EditedEvent["deposit"]["kind"], value: Number(row.deposit_value ?? 0) },
    siblingDiscount: toSiblingDiscount(row),
    balanceDueDays: Number(row.balance_due_days ?? 14),
  };
}

/**
 * The event after the changes: a package given replaces that code's price (and label) or is added after the others;
 * the full package spans every day. A package whose days change without a label given gets the default label.
 */
function merged(current: EditedEvent, changes: EventChanges): EditedEvent {
  const { packages: givenPackages = [], ...fields } = changes;
  const next: EditedEvent = { ...current, ...fields, packages: [] };
  const datesChanged = next.startDate !== current.startDate || next.endDate !== current.endDate;
  if (changes.dateText === undefined && datesChanged) next.dateText = dateTextFor(next.startDate, next.endDate);
  const days = daysOf(next.startDate, next.endDate).length;
  const codes = [...current.packages.map((p) => p.code), ...givenPackages.map((p) => p.code).filter((c) => !current.packages.some((p) => p.code === c))];
  next.packages = codes.map((code) => {
    const was = current.packages.find((p) => p.code === code);
    const given = givenPackages.find((p) => p.code === code);
    const dayCount = packageDayCount(code, days);
    const label = given?.label ?? (was && was.dayCount === dayCount ? was.label : defaultPackageLabel(code, days));
    return { code, label, priceCents: given?.priceCents ?? was!.priceCents, dayCount };
  });
  return next;
}

function refuseUnlessValid(event: EditedEvent): void {
  const refusal = eventRefusal(event);
  if (refusal) throw new EventEditRefused(refusal);
}

/** The events row's columns for the fields that differ from `was` (all of them on create). */
function eventColumns(next: EditedEvent, was: EditedEvent | undefined): Row {
  const cols: Row = {};
  const changed = (k: keyof EditedEvent) => !was || JSON.stringify(was[k]) !== JSON.stringify(next[k]);
  if (changed("title")) cols.title = next.title;
  if (changed("startDate")) cols.start_date = utcDay(next.startDate);
  if (changed("endDate")) cols.end_date = utcDay(next.endDate);
  if (changed("dateText")) cols.date_text = next.dateText;
  if (changed("timeZone")) cols.time_zone = next.timeZone;
  if (changed("location")) cols.location = next.location;
  if (changed("teamPriceCents")) cols.team_price_cents = next.teamPriceCents;
  if (changed("listed")) cols.listed = next.listed;
  if (changed("deposit")) Object.assign(cols, { deposit_kind: next.deposit.kind, deposit_value: next.deposit.value });
  if (changed("siblingDiscount")) Object.assign(cols, { sibling_discount_kind: next.siblingDiscount.kind, sibling_discount_value: next.siblingDiscount.value });
  if (changed("balanceDueDays")) cols.balance_due_days = next.balanceDueDays;
  if (changed("registrationClosesOn") || changed("timeZone"))
    cols.registration_closes_at = next.registrationClosesOn === null ? null : startOfDayIn(next.registrationClosesOn, next.timeZone);
  if (changed("changesFreezeOn") || changed("timeZone")) cols.changes_freeze_at = next.changesFreezeOn === null ? null : startOfDayIn(next.changesFreezeOn, next.timeZone);
  return cols;
}

async function writePackages(trx: Knex.Transaction, eventId: number, packages: EditedPackage[]): Promise<void> {
  const stored: Row[] = await trx<Row>("event_packages").where({ event_id: eventId });
  for (const [i, p] of packages.entries()) {
    const row = { label: p.label, price_cents: p.priceCents, day_count: p.dayCount, sort_order: i + 1 };
    if (stored.some((s) => s.code === p.code)) await trx("event_packages").where({ event_id: eventId, code: p.code }).update(row);
    else await trx("event_packages").insert({ event_id: eventId, code: p.code, ...row });
  }
}

/** The days athletes pick: moved with the dates; their number changes only while no registration or coach chose one. */
async function writeDays(trx: Knex.Transaction, eventId: number, startDate: string, endDate: string): Promise<void> {
  const wanted = daysOf(startDate, endDate);
  const stored: Row[] = await trx<Row>("event_days").where({ event_id: eventId }).orderBy(["sort_order", "id"]);
  if (stored.length === wanted.length) {
    for (const [i, s] of stored.entries()) await trx("event_days").where({ id: s.id }).update({ day_date: utcDay(wanted[i]!), label: dayLabel(wanted[i]!), sort_order: i + 1 });
    return;
  }
  const ids = stored.map((s) => s.id as number);
  if (ids.length) {
    const chosen: Row | undefined = (await trx<Row>("registration_days").whereIn("event_day_id", ids).first()) ?? (await trx<Row>("coach_request_days").whereIn("event_day_id", ids).first());
    if (chosen) throw new EventEditRefused(`Registrations or coach requests chose days of event ${eventId}: its number of days (${stored.length}) cannot change, only the dates.`);
    await trx("event_days").whereIn("id", ids).delete();
  }
  await trx("event_days").insert(wanted.map((d, i) => ({ event_id: eventId, day_date: utcDay(d), label: dayLabel(d), sort_order: i + 1 })));
}

export interface EventListing extends EditedEvent {
  id: number;
}

export async function listEventsForOperator(db: Db): Promise<EventListing[]> {
  return lockingTransaction(db, async (trx) => {
    const rows: Row[] = await trx<Row>("events").orderBy("id");
    return Promise.all(rows.map(async (r) => ({ id: Number(r.id), ...(await readEdited(trx, r)) })));
  });
}

export async function showEventForOperator(db: Db, eventId: number): Promise<EventListing> {
  return lockingTransaction(db, async (trx) => {
    const row: Row | undefined = await trx<Row>("events").where({ id: eventId }).first();
    if (!row) throw new EventEditRefused(`There is no event ${eventId}.`);
    return { id: eventId, ...(await readEdited(trx, row)) };
  });
}

/** A new event with the given fields; its description, picture, category, hours, features, ages and team price copied from `likeEventId`. */
export async function createEvent(db: Db, likeEventId: number, changes: EventChanges, now: Date): Promise<EventListing> {
  return lockingTransaction(db, async (trx) => {
    const like: Row | undefined = await trx<Row>("events").where({ id: likeEventId }).first();
    if (!like) throw new EventEditRefused(`There is no event ${likeEventId} to copy from.`);
    const base = await readEdited(trx, like);
    // Only the given packages; the copied event's give their labels where their days match.
    const next = merged({ ...base, packages: [] }, changes);
    for (const p of next.packages) {
      const copied = base.packages.find((b) => b.code === p.code && b.dayCount === p.dayCount);
      if (copied && !changes.packages?.find((g) => g.code === p.code)?.label) p.label = copied.label;
    }
    if (changes.dateText === undefined) next.dateText = dateTextFor(next.startDate, next.endDate);
    if (changes.registrationClosesOn === undefined) next.registrationClosesOn = null;
    if (changes.changesFreezeOn === undefined) next.changesFreezeOn = null;
    refuseUnlessValid(next);
    const { id: _id, created_at: _c, updated_at: _u, ...copied } = like;
    // The copied event's own promotion (a struck-through price, a line over its card picture) is not the new event's.
    const [inserted] = await trx("events").insert({ ...copied, card_overlay: null, original_price_cents: null, ...eventColumns(next, undefined), capacity: next.capacity, created_at: now, updated_at: now });
    const id = Number(inserted);
    // Its count of places taken (src/events/places.ts): nothing yet.
    await trx("event_places").insert({ event_id: id, taken: 0 });
    await writePackages(trx, id, next.packages);
    await writeDays(trx, id, next.startDate, next.endDate);
    await bumpEventsVersion(trx);
    return { id, ...next };
  });
}

/** Changes the given fields of an event under its lock; a capacity change follows the waiting list's rule. */
export async function updateEvent(db: Db, eventId: number, changes: EventChanges, now: Date): Promise<{ before: EventListing; after: EventListing; roundAsked: boolean }> {
  return queuedLockingTransaction(db, eventKey(eventId), async (trx) => {
    const locked = await lockEventForChange(trx, eventId);
    if (!locked) throw new EventEditRefused(`There is no event ${eventId}.`);
    const current = await readEdited(trx, locked);
    const next = merged(current, changes);
    refuseUnlessValid(next);
    let roundAsked = false;
    if (next.capacity !== current.capacity) {
      const done = await changeLockedCapacity(trx, eventId, locked, next.capacity, now);
      if (!done.ok) throw new EventEditRefused(done.reason);
      roundAsked = done.roundAsked;
    }
    const cols = eventColumns(next, current);
    await trx("events").where({ id: eventId }).update({ ...cols, updated_at: now });
    if (JSON.stringify(next.packages) !== JSON.stringify(current.packages)) await writePackages(trx, eventId, next.packages);
    if (next.startDate !== current.startDate || next.endDate !== current.endDate) await writeDays(trx, eventId, next.startDate, next.endDate);
    await bumpEventsVersion(trx);
    return { before: { id: eventId, ...current }, after: { id: eventId, ...next }, roundAsked };
  });
}
