import type { Knex } from "knex";

/**
 * The seeded season moves from summer 2025 (over) to summer 2027, same months and days: event 2 June 5-7,
 * event 3 June 12-13, event 4 June 15-17, event 1 June 19-21. Day labels are recomputed because the
 * weekdays change. Only rows still carrying the seeded year move, so an operator's edits are kept.
 */
const SEEDED_IDS = [1, 2, 3, 4];

const dayLabel = (d: Date) => d.toLocaleDateString("en-US", { weekday: "long", month: "long", day: "numeric", timeZone: "UTC" });

/** DATE columns: a Date (MySQL), epoch milliseconds or 'YYYY-MM-DD' (SQLite). */
function readDate(value: unknown): Date | null {
  if (value instanceof Date) return value;
  if (typeof value === "number" || /^\d+$/.test(String(value))) return new Date(Number(value));
  return new Date(`${String(value).slice(0, 10)}T00:00:00Z`);
}

function shiftYear(value: unknown, years: number): Date {
  const d = readDate(value);
  if (!d || Number.isNaN(d.getTime())) throw new Error(`unreadable date: ${String(value)}`);
  const out = new Date(d.getTime());
  out.setUTCFullYear(out.getUTCFullYear() + years);
  return out;
}

async function moveSeason(knex: Knex, from: number, to: number): Promise<void> {
  const years = to - from;
  const rows: Record<string, unknown>[] = await knex("events").whereIn("id", SEEDED_IDS).andWhere("date_text", "like", `%, ${from}`);
  for (const row of rows) {
    const id = Number(row.id);
    await knex("events")
      .where({ id })
      .update({
        date_text: String(row.date_text).replace(`, ${from}`, `, ${to}`),
        start_date: shiftYear(row.start_date, years),
        end_date: shiftYear(row.end_date, years),
        updated_at: new Date(),
      });
    const days: Record<string, unknown>[] = await knex("event_days").where({ event_id: id });
    for (const day of days) {
      const date = shiftYear(day.day_date, years);
      await knex("event_days").where({ id: day.id }).update({ day_date: date, label: dayLabel(date) });
    }
  }
}

export async function up(knex: Knex): Promise<void> {
  await moveSeason(knex, 2025, 2027);
}

export async function down(knex: Knex): Promise<void> {
  await moveSeason(knex, 2027, 2025);
}
