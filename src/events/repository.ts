import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import { toBool, toDate, toJson } from "../db/rows.ts";
import { isMysql } from "../db/dialect.ts";
import {
  type CollegeLogo,
  type EventCoach,
  type EventDay,
  type EventDetail,
  type EventPackage,
  type EventSummary,
} from "../shared/events/types.ts";
import { isPackageCode, unknownPackageCodes, type PackageCode } from "../shared/registrations/packages.ts";
import { headlinePriceCents, registrationClosingTime } from "../shared/events/rules.ts";
import { DEFAULT_TIME_ZONE, startOfDayIn } from "../shared/timeZones.ts";
import { eventCaches } from "./cache.ts";
import { chooseOffers, type LineEntry } from "../shared/registrations/waitingList.ts";
import { toText } from "../shared/toText.ts";
import { NO_SIBLING_DISCOUNT, SIBLING_DISCOUNT_KINDS, type SiblingDiscount } from "../shared/registrations/siblings.ts";
import { DEFAULT_BALANCE_GRACE_DAYS, DEPOSIT_KINDS, type DepositKind, type DepositPolicy } from "../shared/registrations/deposits.ts";

/**
 * The one module that queries the events tables. Event data read through the Db (pages, forms, e-mails' texts)
 * comes from the per-database cache (EVENT_CACHE_MS, emptied by this process's writes); read through a
 * transaction it comes from the database. Places are counted in the database by `placesLeft`, the only count a
 * hold may be decided on; `shownPlacesLeft` is the cached count pages print.
 */

type Row = Record<string, unknown>;
type Conn = Db | Knex.Transaction;

const num = (v: unknown) => Number(v);
const str = (v: unknown) => (v === null || v === undefined ? "" : toText(v));

/** DATE columns come back as Date (MySQL), epoch milliseconds or 'YYYY-MM-DD' (SQLite). */
function calendarDate(v: unknown): Date {
  const d = toDate(v);
  if (!d || Number.isNaN(d.getTime())) throw new Error(`unreadable event date: ${String(v)}`);
  return d;
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

function groupBy<T>(rows: Row[], map: (r: Row) => T): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const r of rows) {
    const key = num(r.event_id);
    const list = out.get(key) ?? [];
    list.push(map(r));
    out.set(key, list);
  }
  return out;
}

/** A package row's code; a code that names no package (src/shared/registrations/packages.ts) is an error, never dropped. */
export function packageCodeOf(row: Row): PackageCode {
  const code = str(row.code);
  if (!isPackageCode(code)) throw new Error(unknownPackageText([{ eventId: num(row.event_id), code }]));
  return code;
}

const unknownPackageText = (unknown: { eventId: number; code: string; title?: string }[]) =>
  `${unknown.map((u) => `event ${u.eventId}${u.title ? ` (${u.title})` : ""} offers package code "${u.code}"`).join(", ")}, which is no package: ` +
  "add it to src/shared/registrations/packages.ts, or correct event_packages.code";

/** At start: every event's package codes name a package, or the start is refused naming each event and code. */
export async function checkPackageCodes(db: Db): Promise<void> {
  const rows = (await db("event_packages")
    .join("events", "events.id", "event_packages.event_id")
    .select("event_packages.event_id", "event_packages.code", "events.title")
    .orderBy([{ column: "event_packages.event_id" }, { column: "event_packages.id" }])) as Row[];
  const titles = new Map(rows.map((r) => [num(r.event_id), str(r.title)]));
  const unknown = unknownPackageCodes(rows.map((r) => ({ eventId: num(r.event_id), code: str(r.code) })));
  if (unknown.length > 0) throw new Error(unknownPackageText(unknown.map((u) => ({ ...u, title: titles.get(u.eventId) }))));
}

const toPackage = (r: Row): EventPackage => ({ code: packageCodeOf(r), label: str(r.label), priceCents: num(r.price_cents), dayCount: num(r.day_count) });
const toDay = (r: Row): EventDay => ({ id: num(r.id), label: str(r.label), date: isoDay(calendarDate(r.day_date)) });
const toCoach = (r: Row): EventCoach => ({ id: num(r.id), name: str(r.name), title: str(r.title), bio: str(r.bio), image: str(r.image) });
/** An events row's deposit policy (a row read under the event's lock decides a hold's plan). */
export const toDepositPolicy = (r: Row): DepositPolicy => {
  const kind = str(r.deposit_kind);
  return {
    kind: (DEPOSIT_KINDS as readonly string[]).includes(kind) ? (kind as DepositKind) : "none",
    value: num(r.deposit_value ?? 0),
    balanceDueDays: num(r.balance_due_days ?? 14),
    balanceGraceDays: num(r.balance_grace_days ?? DEFAULT_BALANCE_GRACE_DAYS),
  };
};
/** An events row's sibling discount (src/shared/registrations/siblings.ts). */
export const toSiblingDiscount = (r: Row): SiblingDiscount => {
  const kind = str(r.sibling_discount_kind);
  return (SIBLING_DISCOUNT_KINDS as readonly string[]).includes(kind) && kind !== "none" ? { kind: kind as SiblingDiscount["kind"], value: num(r.sibling_discount_value ?? 0) } : NO_SIBLING_DISCOUNT;
};
const toLogo = (r: Row): CollegeLogo => ({ id: num(r.id), name: str(r.name), image: str(r.image) });

async function childRows(db: Conn, table: string, ids: number[]): Promise<Row[]> {
  if (ids.length === 0) return [];
  return db(table).whereIn("event_id", ids).orderBy([{ column: "event_id" }, { column: "sort_order" }, { column: "id" }]);
}

interface ChildrenOf {
  packages: Map<number, EventPackage[]>;
  days: Map<number, EventDay[]>;
  logos: Map<number, CollegeLogo[]>;
}

async function summaries(db: Conn, rows: Row[]): Promise<EventSummary[]> {
  const ids = rows.map((r) => num(r.id));
  const [packageRows, dayRows, logoRows] = await Promise.all([
    childRows(db, "event_packages", ids),
    childRows(db, "event_days", ids),
    childRows(db, "event_college_logos", ids),
  ]);
  const children = { packages: groupBy(packageRows, toPackage), days: groupBy(dayRows, toDay), logos: groupBy(logoRows, toLogo) };
  return rows.map((r) => summaryOf(r, children));
}

function summaryOf(r: Row, { packages, days, logos }: ChildrenOf): EventSummary {
  const id = num(r.id);
  const eventPackages = packages.get(id) ?? [];
  const fullPriceCents = headlinePriceCents(eventPackages);
  const startDate = calendarDate(r.start_date);
  const timeZone = str(r.time_zone) || DEFAULT_TIME_ZONE;
  return {
    id,
    title: str(r.title),
    shortDescription: str(r.short_description),
    category: str(r.category),
    dateText: str(r.date_text),
    startDate,
    endDate: calendarDate(r.end_date),
    time: str(r.time_text),
    location: str(r.location),
    image: str(r.image),
    cardOverlay: r.card_overlay ? str(r.card_overlay) : null,
    capacity: num(r.capacity),
    ageGroup: str(r.age_group),
    ageLimits: { min: num(r.min_age ?? 10), max: num(r.max_age ?? 19) },
    timeZone,
    listed: toBool(r.listed),
    registrationClosesAt: registrationClosingTime(toDate(r.registration_closes_at), startOfDayIn(isoDay(startDate), timeZone)),
    fullPriceCents,
    regularPriceCents: fullPriceCents,
    teamPriceCents: num(r.team_price_cents),
    originalPriceCents: r.original_price_cents === null || r.original_price_cents === undefined ? null : num(r.original_price_cents),
    packages: eventPackages,
    days: days.get(id) ?? [],
    collegeLogos: logos.get(id) ?? [],
    coachRegistration: toBool(r.coach_registration),
    depositPolicy: toDepositPolicy(r),
    siblingDiscount: toSiblingDiscount(r),
  };
}

const inTransaction = (conn: Conn): conn is Knex.Transaction => (conn as Knex.Transaction).isTransaction === true;

/** Listed events in id order, with their packages, days and college logos; four queries however many events. */
export async function listEvents(db: Db): Promise<EventSummary[]> {
  return eventCaches(db).events.get("listed", async () => {
    const rows: Row[] = await db<Row>("events").where("listed", true).orderBy("id");
    return summaries(db, rows);
  });
}

/** Listed events' ids and when each row last changed (the sitemap's lastmod). */
export async function listedEventChanges(db: Db): Promise<{ id: number; updatedAt: Date }[]> {
  const rows: { id: number; updated_at: Date | string | number }[] = await db("events").where("listed", true).orderBy("id").select("id", "updated_at");
  return rows.map((r) => ({ id: Number(r.id), updatedAt: new Date(r.updated_at) }));
}

/** One event (listed or not) with everything its page shows; null when there is no such event. */
export async function findEvent(conn: Conn, id: number): Promise<EventDetail | null> {
  if (!Number.isSafeInteger(id) || id < 1) return null;
  if (inTransaction(conn)) return readEvent(conn, id);
  return eventCaches(conn).events.get(`event:${id}`, () => readEvent(conn, id));
}

/** The event as this instance keeps it (findEvent outside a transaction), or undefined when it is not kept now: reads nothing. */
export function keptEvent(db: Db, id: number): EventDetail | undefined {
  return eventCaches(db).events.peek<EventDetail | null>(`event:${id}`) ?? undefined;
}

/** The columns each child table's mapper reads (a column it starts to read is added here too). */
const CHILD_COLUMNS = {
  event_packages: ["code", "label", "price_cents", "day_count"],
  event_days: ["label", "day_date"],
  event_college_logos: ["name", "image"],
  event_coaches: ["name", "title", "bio", "image"],
} as const;
type ChildTable = keyof typeof CHILD_COLUMNS;

const childJson = (table: ChildTable) => {
  const columns = ["id", "sort_order", ...CHILD_COLUMNS[table]];
  return `(select json_arrayagg(json_object(${columns.map((c) => `'${c}', c.${c}`).join(", ")})) from ${table} c where c.event_id = e.id) as ${table}_json`;
};
const EVENT_CHILDREN_JSON = (Object.keys(CHILD_COLUMNS) as ChildTable[]).map(childJson);

/**
 * One event with its packages, days, logos and coaches. On MySQL one statement, the child rows aggregated as JSON in
 * subqueries and put in childRows' order here (JSON_ARRAYAGG keeps none), as the registration read does
 * (src/registrations/core/registration.ts); a cache refill was five statements. SQLite reads them apart (one
 * connection: nothing to save).
 */
async function readEvent(db: Conn, id: number): Promise<EventDetail | null> {
  if (isMysql(db)) {
    const row: Row | undefined = await db<Row>("events as e").where("e.id", id).select("e.*", ...EVENT_CHILDREN_JSON.map((sql) => db.raw(sql))).first();
    if (!row) return null;
    const rows = (table: ChildTable) =>
      toJson<Row[]>(row[`${table}_json`], [])
        .sort((a, b) => num(a.sort_order) - num(b.sort_order) || num(a.id) - num(b.id))
        .map((r) => ({ ...r, event_id: id }));
    const one = <T>(list: T[]) => new Map([[id, list]]);
    const summary = summaryOf(row, { packages: one(rows("event_packages").map(toPackage)), days: one(rows("event_days").map(toDay)), logos: one(rows("event_college_logos").map(toLogo)) });
    return detailOf(row, summary, rows("event_coaches"));
  }
  const row: Row | undefined = await db<Row>("events").where("id", id).first();
  if (!row) return null;
  const [[summary], coachRows] = await Promise.all([summaries(db, [row]), childRows(db, "event_coaches", [id])]);
  return detailOf(row, summary!, coachRows);
}

const detailOf = (row: Row, summary: EventSummary, coachRows: Row[]): EventDetail => ({
  ...summary,
  description: str(row.description),
  features: toJson<unknown[]>(row.features_json, []).map(String),
  coaches: coachRows.map(toCoach),
});

/**
 * Registrations that take places at `now`: paid ones, ones whose deposit is paid (deposit_paid, and balance_overdue
 * until its grace date releases it), ones whose payment waits for an operator (needs_review), and pending ones whose hold has not expired (src/registrations/core/states.ts).
 */
const PLACE_HOLDING_STATUSES = ["paid", "needs_review", "deposit_paid", "balance_overdue"];
function takingPlaces(conn: Conn, now: Date) {
  return conn("registrations").where((q) => {
    q.whereIn("status", PLACE_HOLDING_STATUSES).orWhere((held) => { held.where("status", "pending_payment").andWhere("reserved_until", ">", now); });
  });
}

/**
 * Places taken: paid registrations (free ones too) plus pending ones whose hold (`reserved_until`) has not
 * expired, each counting its `places` (a team holds one place per athlete). `exceptRegistrationId` leaves
 * out a registration being changed, so its own hold is not counted twice.
 */
export async function placesTaken(conn: Conn, eventId: number, now: Date, exceptRegistrationId?: number, opts: { locking?: boolean } = {}): Promise<number> {
  const query = takingPlaces(conn, now).andWhere("event_id", eventId);
  if (exceptRegistrationId !== undefined) query.andWhereNot("id", exceptRegistrationId);
  const changes = changesHoldingPlaces(conn, now).andWhere("event_id", eventId);
  // A locking read sees every committed row, even when the transaction's snapshot is older (MySQL REPEATABLE READ).
  if (opts.locking) {
    query.forShare();
    changes.forShare();
    const row: Row | undefined = await query.sum({ taken: "places" }).first();
    const held: Row | undefined = await changes.sum({ held: "places" }).first();
    return (Number(row?.taken ?? 0) || 0) + (Number(held?.held ?? 0) || 0);
  }
  // One round trip (a hold runs this under the event's lock): both sums as subqueries of one select.
  const [row]: Row[] = await conn.select({ taken: query.sum("places"), held: changes.sum("places") });
  return (Number(row?.taken ?? 0) || 0) + (Number(row?.held ?? 0) || 0);
}

/**
 * Athletes being added to a paid team (registration_changes, src/registrations/changes/addAthletes.ts): a pending
 * change holds its places until its `reserved_until`, one in review keeps them, like a pending registration's hold.
 */
function changesHoldingPlaces(conn: Conn, now: Date) {
  return conn("registration_changes").where((q) => {
    q.where("status", "needs_review").orWhere((held) => { held.where("status", "pending").andWhere("reserved_until", ">", now); });
  });
}

/** What pages show of each event's places: those taken, and the families and teams waiting in its line. */
interface ShownPlaces {
  taken: Record<number, number>;
  waiting: Record<number, WaitingCount>;
  lines: Record<number, LineEntry[]>;
}

export interface WaitingCount {
  entries: number;
  places: number;
}

/** One query each for every event, at `now` of the first request of each EVENT_CACHE_MS. */
function shownPlaces(db: Db, now: Date): Promise<ShownPlaces> {
  return eventCaches(db).places.get("shown", async () => {
    const registered: Row[] = await takingPlaces(db, now).groupBy("event_id").select("event_id").sum({ taken: "places" });
    const held: Row[] = await changesHoldingPlaces(db, now).groupBy("event_id").select("event_id").sum({ taken: "places" });
    const taken: Record<number, number> = {};
    for (const r of [...registered, ...held]) taken[num(r.event_id)] = (taken[num(r.event_id)] ?? 0) + (Number(r.taken) || 0);
    const inLine: Row[] = await db("waiting_list_entries").where("status", "waiting").orderBy(["event_id", "position"]).select("id", "event_id", "places", "passed_over", "holds_line_until");
    const lines: Record<number, LineEntry[]> = {};
    for (const r of inLine) (lines[num(r.event_id)] ??= []).push({ id: num(r.id), places: num(r.places), passedOver: num(r.passed_over), holdsLineUntil: toDate(r.holds_line_until)?.getTime() ?? null });
    const waiting = Object.fromEntries(Object.entries(lines).map(([id, line]) => [Number(id), { entries: line.length, places: line.reduce((s, e) => s + e.places, 0) }]));
    return { taken, waiting, lines };
  });
}

/**
 * Places left as pages show them, so a hold or payment in another process shows after at most EVENT_CACHE_MS.
 * Less the free places the waiting list keeps back (the line's rule, chooseOffers: README: Waiting list).
 * For display only: a hold is decided by `placesLeft`, under the event's lock.
 */
export async function shownPlacesLeft(db: Db, now: Date): Promise<(event: Pick<EventSummary, "id" | "capacity">) => number> {
  const { taken, lines } = await shownPlaces(db, now);
  return (event) => {
    const free = Math.max(0, event.capacity - (taken[event.id] ?? 0));
    return free - (lines[event.id] ? chooseOffers(lines[event.id]!, free, now.getTime()).heldBack : 0);
  };
}

/** How many families and teams wait in each event's line, and for how many places, as pages show it. */
export async function shownWaiting(db: Db, now: Date): Promise<(eventId: number) => WaitingCount> {
  const { waiting } = await shownPlaces(db, now);
  return (eventId) => waiting[eventId] ?? { entries: 0, places: 0 };
}

/**
 * Capacity minus paid and held places, never below 0; 0 for an unknown event. To decide on a place (a hold),
 * call it inside a transaction whose first statement is `lockForUpdate(trx, "events", eventId)` (src/db/locks.ts).
 */
export async function placesLeft(
  conn: Conn,
  eventId: number,
  now: Date,
  exceptRegistrationId?: number,
  opts: { locking?: boolean } = {},
): Promise<number> {
  const query = conn("events").where("id", eventId);
  if (opts.locking) {
    query.forShare();
    const row: Row | undefined = await query.first("capacity");
    if (!row) return 0;
    return Math.max(0, num(row.capacity) - (await placesTaken(conn, eventId, now, exceptRegistrationId, opts)));
  }
  // One round trip (a hold asks this of every visitor before the event's queue): the capacity and both sums at once.
  const taken = takingPlaces(conn, now).andWhere("event_id", eventId);
  if (exceptRegistrationId !== undefined) taken.andWhereNot("id", exceptRegistrationId);
  const held = changesHoldingPlaces(conn, now).andWhere("event_id", eventId);
  const [row]: Row[] = await conn.select({ capacity: query.select("capacity"), taken: taken.sum("places"), held: held.sum("places") });
  if (row?.capacity === null || row?.capacity === undefined) return 0;
  return Math.max(0, num(row.capacity) - (Number(row.taken ?? 0) || 0) - (Number(row.held ?? 0) || 0));
}
