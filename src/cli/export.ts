// `npm run export -- <what> ...`: a CSV file of registrations (one row per athlete), orders, coach requests, contact
// messages or an event's waiting list, read from the database as a stream (memory stays flat however many rows) and written as spreadsheets
// open it (src/cli/csv.ts). Reads only; an existing file is never overwritten.
import fs from "node:fs";
import path from "node:path";
import { Transform, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import type { Knex } from "knex";
import { commandConfig } from "./commandConfig.ts";
import { createDb, type Db } from "../db/knex.ts";
import { findEvent } from "../events/repository.ts";
import { csvRows } from "./csv.ts";
import { defaultFileName, parseExportArgs, USAGE, type ExportCommand } from "./exportArgs.ts";
import { toText } from "../shared/toText.ts";

export class ExportError extends Error {}

/** The registration_roster view's columns, in its order (test/integration/exports.test.ts holds the two equal). */
export const ROSTER_COLUMNS = [
  "reference", "event_title", "kind", "team_name", "athlete_name", "grade_or_age", "gender", "school", "club", "shirt_size", "package", "days",
  "amount_paid", "discount_code", "discount_amount", "amount_refunded", "status", "contact_email", "contact_phone", "emergency_contact",
  "special_requirements", "created_at", "paid_at", "refunded_at", "waiver_version", "waiver_signed_by", "waiver_signed_at", "missing",
  "deposit_paid", "balance", "balance_due", "sibling_discount",
];
export const ORDER_COLUMNS = [
  "reference", "status", "created_at", "paid_at", "customer_name", "customer_email", "customer_phone", "ship_name", "ship_line1", "ship_line2",
  "ship_city", "ship_state", "ship_zip", "items", "subtotal", "shipping", "total", "shopify_sync_status",
];
export const COACH_REQUEST_COLUMNS = [
  "id", "created_at", "event_id", "event_title", "days_attending", "full_name", "title", "college_name", "email", "cell_phone", "school_phone",
  "school_website", "division_level", "conference", "number_of_athletes", "areas_of_interest", "notes", "has_logo",
];
export const MESSAGE_COLUMNS = ["id", "created_at", "name", "email", "phone", "subject", "message"];
/** The waiting_list view's columns, in its order. */
export const WAITING_LIST_COLUMNS = [
  "event_id", "event_title", "position", "kind", "size", "package", "status", "offered_until", "passed_over", "contact_name", "contact_email",
  "contact_phone", "team_name", "joined_at",
];

/** A stored time as spreadsheets read it: `YYYY-MM-DD HH:MM:SS`, UTC (SQLite keeps epoch milliseconds). */
function utcTime(value: unknown): string | null {
  if (value === null || value === undefined || value === "") return null;
  const d = value instanceof Date ? value : typeof value === "number" ? new Date(value) : new Date(`${toText(value).replace(" ", "T")}${/Z|[+-]\d\d:\d\d$/.test(toText(value)) ? "" : "Z"}`);
  return Number.isNaN(d.getTime()) ? toText(value) : d.toISOString().slice(0, 19).replace("T", " ");
}
const dollars = (cents: unknown) => (cents === null || cents === undefined ? null : (Number(cents) / 100).toFixed(2));

interface Plan {
  query: Knex.QueryBuilder;
  columns: string[];
  row: (r: Record<string, unknown>) => Record<string, unknown>;
}

async function plan(db: Db, cmd: ExportCommand): Promise<Plan> {
  const between = (q: Knex.QueryBuilder, column: string) => {
    if (cmd.from) q.where(column, ">=", cmd.from);
    if (cmd.to) q.where(column, "<", cmd.to);
    return q;
  };
  switch (cmd.name) {
    case "registrations": {
      const event = await findEvent(db, cmd.eventId!);
      if (!event) throw new ExportError(`There is no event ${cmd.eventId}.`);
      const query = db("registration_roster as v").join("registrations as r", "r.reference", "v.reference").where("r.event_id", event.id).select("v.*");
      if (cmd.day) {
        const day = event.days.find((d) => d.date === cmd.day);
        if (!day) throw new ExportError(`Event ${event.id} has no day ${cmd.day}: its days are ${event.days.map((d) => d.date).join(", ")}.`);
        query.whereExists((q) => { q.select(db.raw("1")).from("registration_days as rd").whereRaw("rd.registration_id = r.id").where("rd.event_day_id", day.id); });
      }
      query.orderBy("r.id").orderBy("v.athlete_name");
      return { query, columns: ROSTER_COLUMNS, row: (r) => ({ ...r, created_at: utcTime(r.created_at), paid_at: utcTime(r.paid_at), refunded_at: utcTime(r.refunded_at), waiver_signed_at: utcTime(r.waiver_signed_at), balance_due: utcTime(r.balance_due) }) };
    }
    case "orders": {
      const items = db("order_items as i").whereRaw("i.order_id = o.id").sum({ n: "i.quantity" });
      const query = between(db("orders as o").select("o.*", items.as("items")), "o.created_at").orderBy("o.id");
      return {
        query,
        columns: ORDER_COLUMNS,
        row: (r) => ({
          ...r,
          created_at: utcTime(r.created_at),
          paid_at: utcTime(r.paid_at),
          customer_name: `${String(r.customer_first_name)} ${String(r.customer_last_name)}`,
          items: Number(r.items ?? 0),
          subtotal: dollars(r.subtotal_cents),
          shipping: dollars(r.shipping_cents),
          total: dollars(r.total_cents),
        }),
      };
    }
    case "coach-requests": {
      const query = db("coach_request_list").orderBy("id");
      if (cmd.eventId !== undefined) {
        if (!(await findEvent(db, cmd.eventId))) throw new ExportError(`There is no event ${cmd.eventId}.`);
        query.where("event_id", cmd.eventId);
      }
      return { query, columns: COACH_REQUEST_COLUMNS, row: (r) => ({ ...r, created_at: utcTime(r.created_at), has_logo: r.logo_file ? "yes" : "no" }) };
    }
    case "messages":
      return { query: between(db("contact_messages"), "created_at").orderBy("id"), columns: MESSAGE_COLUMNS, row: (r) => ({ ...r, created_at: utcTime(r.created_at) }) };
    case "waiting-list": {
      if (!(await findEvent(db, cmd.eventId!))) throw new ExportError(`There is no event ${cmd.eventId}.`);
      const query = db("waiting_list").where("event_id", cmd.eventId!).orderBy("position");
      return { query, columns: WAITING_LIST_COLUMNS, row: (r) => ({ ...r, offered_until: utcTime(r.offered_until), joined_at: utcTime(r.joined_at) }) };
    }
  }
}

/** Streams the export to `output` as CSV; resolves with the number of rows. */
export async function runExport(db: Db, cmd: ExportCommand, output: Writable): Promise<number> {
  const { query, columns, row } = await plan(db, cmd);
  const csv = csvRows(columns);
  const shape = new Transform({ objectMode: true, transform: (r: Record<string, unknown>, _e, done) => done(null, row(r)) });
  await pipeline(query.stream(), shape, csv, output);
  return csv.rows();
}

async function main(argv: string[]): Promise<number> {
  const cmd = parseExportArgs(argv);
  if ("help" in cmd) {
    console.log(USAGE);
    return 0;
  }
  if ("error" in cmd) {
    console.error(cmd.error);
    return 1;
  }
  const config = commandConfig();
  if (!config) return 1;
  const toStdout = cmd.out === "-";
  // npm runs scripts from the package folder; INIT_CWD is where the command was typed.
  const file = toStdout ? undefined : path.resolve(process.env.INIT_CWD ?? process.cwd(), cmd.out ?? defaultFileName(cmd));
  if (file && fs.existsSync(file)) {
    console.error(`${file} exists: remove it or choose another name with --out FILE.`);
    return 1;
  }
  const db = createDb(config.database);
  try {
    // The checks that can refuse (the event, the day) run before the file is created.
    await plan(db, cmd);
    const output = file ? fs.createWriteStream(file, { flags: "wx" }) : process.stdout;
    try {
      const rows = await runExport(db, cmd, output);
      (toStdout ? console.error : console.log)(`Wrote ${rows} row(s)${file ? ` to ${file}` : ""}.`);
      return 0;
    } catch (err) {
      if (file) fs.rmSync(file, { force: true });
      throw err;
    }
  } catch (err) {
    console.error(err instanceof ExportError ? err.message : `Export failed: ${(err as Error).message.split("\n")[0]}`);
    return 1;
  } finally {
    await db.destroy();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
