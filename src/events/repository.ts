import type { Db } from "../db/knex.ts";
import { toBool, toDate, toJson } from "../db/rows.ts";
import {
  PACKAGE_CODES,
  type CollegeLogo,
  type EventCoach,
  type EventDay,
  type EventDetail,
  type EventPackage,
  type EventSummary,
  type PackageCode,
} from "./types.ts";
import { headlinePriceCents } from "./rules.ts";

/** The one module that queries the events tables. */

type Row = Record<string, unknown>;

const num = (v: unknown) => Number(v);
const str = (v: unknown) => (v === null || v === undefined ? "" : String(v));
const isPackageCode = (v: string): v is PackageCode => (PACKAGE_CODES as readonly string[]).includes(v);

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

const toPackage = (r: Row): EventPackage | null => {
  const code = str(r.code);
  if (!isPackageCode(code)) return null;
  return { code, label: str(r.label), priceCents: num(r.price_cents), dayCount: num(r.day_count) };
};
const toDay = (r: Row): EventDay => ({ id: num(r.id), label: str(r.label), date: isoDay(calendarDate(r.day_date)) });
const toCoach = (r: Row): EventCoach => ({ id: num(r.id), name: str(r.name), title: str(r.title), bio: str(r.bio), image: str(r.image) });
const toLogo = (r: Row): CollegeLogo => ({ id: num(r.id), name: str(r.name), image: str(r.image) });

async function childRows(db: Db, table: string, ids: number[]): Promise<Row[]> {
  if (ids.length === 0) return [];
  return db(table).whereIn("event_id", ids).orderBy([{ column: "event_id" }, { column: "sort_order" }, { column: "id" }]);
}

async function summaries(db: Db, rows: Row[]): Promise<EventSummary[]> {
  const ids = rows.map((r) => num(r.id));
  const [packageRows, dayRows, logoRows] = await Promise.all([
    childRows(db, "event_packages", ids),
    childRows(db, "event_days", ids),
    childRows(db, "event_college_logos", ids),
  ]);
  const packages = groupBy(packageRows, toPackage);
  const days = groupBy(dayRows, toDay);
  const logos = groupBy(logoRows, toLogo);
  return rows.map((r) => {
    const id = num(r.id);
    const eventPackages = (packages.get(id) ?? []).filter((p): p is EventPackage => p !== null);
    const fullPriceCents = headlinePriceCents(eventPackages);
    return {
      id,
      title: str(r.title),
      shortDescription: str(r.short_description),
      category: str(r.category),
      dateText: str(r.date_text),
      startDate: calendarDate(r.start_date),
      endDate: calendarDate(r.end_date),
      time: str(r.time_text),
      location: str(r.location),
      image: str(r.image),
      cardOverlay: r.card_overlay ? str(r.card_overlay) : null,
      capacity: num(r.capacity),
      ageGroup: str(r.age_group),
      listed: toBool(r.listed),
      registrationClosesAt: toDate(r.registration_closes_at),
      fullPriceCents,
      regularPriceCents: fullPriceCents,
      teamPriceCents: num(r.team_price_cents),
      originalPriceCents: r.original_price_cents === null || r.original_price_cents === undefined ? null : num(r.original_price_cents),
      packages: eventPackages,
      days: days.get(id) ?? [],
      collegeLogos: logos.get(id) ?? [],
    };
  });
}

/** Listed events in id order, with their packages, days and college logos. */
export async function listEvents(db: Db): Promise<EventSummary[]> {
  const rows: Row[] = await db("events").where("listed", true).orderBy("id");
  return summaries(db, rows);
}

/** One event (listed or not) with everything its page shows; null when there is no such event. */
export async function findEvent(db: Db, id: number): Promise<EventDetail | null> {
  if (!Number.isSafeInteger(id) || id < 1) return null;
  const row: Row | undefined = await db("events").where("id", id).first();
  if (!row) return null;
  const [[summary], coachRows] = await Promise.all([summaries(db, [row]), childRows(db, "event_coaches", [id])]);
  return {
    ...summary!,
    description: str(row.description),
    features: toJson<unknown[]>(row.features_json, []).map(String),
    coaches: coachRows.map(toCoach),
  };
}

/**
 * Places taken: paid registrations plus pending ones whose hold (`reserved_until`) has not expired.
 * The registrations table comes with the registration feature; until it exists nothing is taken.
 * A registration counts its `places` column when the table has one (a team holds one place per athlete), else 1.
 */
export async function placesTaken(db: Db, eventId: number, now: Date): Promise<number> {
  if (!(await db.schema.hasTable("registrations"))) return 0;
  const hasPlaces = await db.schema.hasColumn("registrations", "places");
  const query = db("registrations")
    .where("event_id", eventId)
    .andWhere((q) =>
      q.where("status", "paid").orWhere((held) => held.where("status", "pending_payment").andWhere("reserved_until", ">", now)),
    );
  const row: Row | undefined = hasPlaces
    ? await query.sum({ taken: "places" }).first()
    : await query.count({ taken: "*" }).first();
  return Number(row?.taken ?? 0) || 0;
}

/** Capacity minus paid and held places, never below 0; 0 for an unknown event. */
export async function placesLeft(db: Db, eventId: number, now: Date): Promise<number> {
  const row: Row | undefined = await db("events").where("id", eventId).first("capacity");
  if (!row) return 0;
  return Math.max(0, num(row.capacity) - (await placesTaken(db, eventId, now)));
}
