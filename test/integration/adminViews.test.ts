import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backend, createMysqlDatabase } from "../support/app.ts";
import { createDb, migrateLatest, type Db } from "../../src/db/knex.ts";
import { ROSTER_COLUMNS } from "../../src/cli/export.ts";

/**
 * The admin views (`registration_roster`, `coach_request_list`) of a migrated database: one row per athlete with the
 * days in the event's order, one row per coach request with the days by date. On SQLite the file is also read by the
 * machine's own `sqlite3` (Debian's is 3.40), as an admin would open `var/app.sqlite3`.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "views-"));
const file = path.join(dir, "app.sqlite3");
let db: Db;
let drop = async () => {};

beforeAll(async () => {
  if (backend === "mysql") {
    const created = await createMysqlDatabase();
    drop = created.drop;
    db = createDb({ client: "mysql2", url: created.url });
  } else {
    db = createDb({ client: "better-sqlite3", filename: file });
  }
  await migrateLatest(db);
  const now = new Date("2027-03-01T10:00:00Z");
  // Event 2's days, put in the opposite order of their ids: the view must follow sort_order, not insertion.
  await db("event_days").where({ id: 4 }).update({ sort_order: 3 });
  await db("event_days").where({ id: 6 }).update({ sort_order: 1 });
  const [registrationId] = await db("registrations").insert({
    reference: "REG-VIEW1", event_id: 2, kind: "individual", status: "paid", places: 1, package_code: "full", package_label: "Full Camp",
    list_price_cents: 29900, amount_cents: 29900, amount_paid_cents: 29900, contact_first_name: "Ana", contact_last_name: "Ruiz",
    contact_email: "ana.ruiz@example.com", contact_phone: "205-555-0100", form_session_id: "views-test-1", agreed_at: now,
    created_at: now, updated_at: now, paid_at: now,
  });
  await db("registration_athletes").insert({
    registration_id: registrationId, position: 1, first_name: "Ana", last_name: "Ruiz", email: "ana.ruiz@example.com", grade: "10th",
    gender: "Female", school_name: "Central High", club_name: "Steel City WC", shirt_size: "M", emergency_contact_name: "Pat Ruiz",
    emergency_contact_phone: "205-555-0199",
  });
  await db("registration_days").insert([4, 5, 6].map((day) => ({ registration_id: registrationId, event_day_id: day })));
  const [coachId] = await db("coach_requests").insert({
    event_id: 3, full_name: "Sam Coach", title: "Head Coach", college_name: "State College", email: "sam.coach@example.edu",
    cell_phone: "205-555-0111", division_level: "D1", conference: "Big Ten", areas_of_interest: "", created_at: now,
  });
  // The later day first: the list follows the dates.
  await db("coach_request_days").insert([8, 7].map((day) => ({ coach_request_id: coachId, event_day_id: day })));
});

afterAll(async () => {
  await db?.destroy();
  await drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function expectRoster(row: Record<string, unknown>) {
  expect(Object.keys(row)).toEqual(ROSTER_COLUMNS);
  expect(row).toMatchObject({ reference: "REG-VIEW1", athlete_name: "Ana Ruiz", grade_or_age: "10th", days: "Monday, June 7, Sunday, June 6, Saturday, June 5", status: "paid" });
  expect(String(row.amount_paid)).toBe("299.00");
}

function expectCoachDays(row: Record<string, unknown>) {
  expect(row.days_attending).toMatch(/^Saturday, June 12, \d{4}; Sunday, June 13, \d{4}$/);
}

describe("the admin views", () => {
  it("list the roster's columns with the days in the event's order, and a coach's days by date", async () => {
    const [roster] = (await db("registration_roster").select("*")) as Record<string, unknown>[];
    expectRoster(roster!);
    const [coach] = (await db("coach_request_list").select("*")) as Record<string, unknown>[];
    expectCoachDays(coach!);
  });

  it.runIf(backend === "sqlite")("open in the machine's sqlite3 (Debian's 3.40 reads no group_concat ... ORDER BY)", async () => {
    const run = (sql: string) => promisify(execFile)("sqlite3", ["-json", file, sql]).catch((err: NodeJS.ErrnoException & { stderr?: string }) => {
      throw new Error(err.code === "ENOENT" ? "no sqlite3 on PATH: apt-get install sqlite3" : `sqlite3: ${err.stderr ?? err.message}`);
    });
    const version = (await promisify(execFile)("sqlite3", ["--version"])).stdout.split(" ")[0];
    expect(version, "sqlite3 --version").toMatch(/^3\.\d+\.\d+$/);
    const roster = JSON.parse((await run("select * from registration_roster")).stdout) as Record<string, unknown>[];
    expect(roster).toHaveLength(1);
    expectRoster(roster[0]!);
    const coach = JSON.parse((await run("select * from coach_request_list")).stdout) as Record<string, unknown>[];
    expectCoachDays(coach[0]!);
    // The whole schema parses: an integrity check reads every table and view definition.
    expect((await run("pragma integrity_check")).stdout).toContain('"integrity_check":"ok"');
  });
});
