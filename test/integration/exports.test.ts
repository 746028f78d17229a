import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backend, createTestApp, type TestApp } from "../support/app.ts";
import { createDb, migrateLatest, type Db } from "../../src/db/knex.ts";
import { COACH_REQUEST_COLUMNS, MESSAGE_COLUMNS, ORDER_COLUMNS, ROSTER_COLUMNS, runExport } from "../../src/cli/export.ts";
import type { ExportCommand } from "../../src/cli/exportArgs.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "exports-"));
let t: TestApp;
/** What the CLI reads: the test app's MySQL database, or (SQLite in memory there) a migrated file with the same rows. */
let cliDb: Db;
let cliEnv: Record<string, string>;

const NOW = new Date("2027-03-01T10:00:00Z");
let n = 0;
async function register(db: Db, eventId: number, athletes: string[], dayIds: number[], extra: Record<string, unknown> = {}) {
  n += 1;
  const [id] = await db("registrations").insert({
    reference: `REG-EXP${n}`, event_id: eventId, kind: athletes.length > 1 ? "team" : "individual", team_name: athletes.length > 1 ? "Steel City" : null,
    status: "paid", places: athletes.length, package_code: "full", package_label: "Full Camp", list_price_cents: 29900 * athletes.length,
    amount_cents: 29900 * athletes.length, amount_paid_cents: 29900 * athletes.length, contact_first_name: "Pat", contact_last_name: "Lee",
    contact_email: "pat.lee@example.com", contact_phone: "+1 205-555-0100", form_session_id: `exports-${n}`, agreed_at: NOW, created_at: NOW,
    updated_at: NOW, paid_at: NOW,
  });
  await db("registration_athletes").insert(athletes.map((name, i) => ({
    registration_id: id, position: i + 1, first_name: name, last_name: "Lee", email: "athlete@example.com", grade: "10th", gender: "Male",
    emergency_contact_name: "Pat Lee", emergency_contact_phone: "205-555-0199", ...extra,
  })));
  await db("registration_days").insert(dayIds.map((d) => ({ registration_id: id, event_day_id: d })));
}

async function seed(db: Db) {
  // Event 2's days are 4, 5 and 6.
  await register(db, 2, ['Ana "The Hammer"'], [4, 5], { special_requirements: '=HYPERLINK("http://evil.example","x")', school_name: "North, High" });
  await register(db, 2, ["Ben", "Cal", "Dee"], [4, 5, 6]);
  await register(db, 1, ["Eve"], [1]);
  const [orderId] = await db("orders").insert({
    reference: "ORD-EXP1", status: "paid", customer_first_name: "Quinn", customer_last_name: "Ray", customer_email: "quinn@example.com",
    customer_phone: "205-555-0111", subtotal_cents: 5000, shipping_cents: 795, total_cents: 5795, currency: "usd", cart_fingerprint: "x",
    shopify_sync_status: "not_configured", ship_name: "Quinn Ray", ship_line1: "1 Main St", ship_city: "Austin", ship_state: "TX", ship_zip: "78701",
    created_at: NOW, updated_at: NOW, paid_at: NOW,
  });
  await db("order_items").insert([1, 2].map((q) => ({
    order_id: orderId, product_id: `p${q}`, variant_id: `v${q}`, product_handle: "tee", product_title: "Tee", variant_title: "M", selected_size: "M",
    unit_price_cents: 2500, quantity: q, line_total_cents: 2500 * q, cart_line_id: `line-${q}`,
  })).slice(0, 1));
  await db("contact_messages").insert({ name: "Sam", email: "sam@example.com", phone: null, subject: "+SUM(A1:A9)", message: "line one\nline two, with a comma", created_at: NOW });
}

beforeAll(async () => {
  t = await createTestApp();
  await seed(t.db);
  if (backend === "mysql") {
    cliDb = t.db;
    cliEnv = { DATABASE_URL: (t.config.database as { url: string }).url };
  } else {
    const file = path.join(dir, "app.sqlite3");
    cliDb = createDb({ client: "better-sqlite3", filename: file });
    await migrateLatest(cliDb);
    await seed(cliDb);
    cliEnv = { SQLITE_PATH: file };
  }
});
afterAll(async () => {
  if (cliDb && cliDb !== t.db) await cliDb.destroy();
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function exported(cmd: ExportCommand): Promise<{ text: string; rows: number }> {
  const chunks: Buffer[] = [];
  const out = new Writable({ write: (c: Buffer, _e, done) => (chunks.push(Buffer.from(c)), done()) });
  const rows = await runExport(t.db, cmd, out);
  return { text: Buffer.concat(chunks).toString("utf8"), rows };
}

/** A small RFC 4180 reader: the lines of records, each a list of fields. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i++;
    } else field += c;
  }
  return records;
}

describe("npm run export -- registrations", () => {
  it("has the roster view's columns, in its order", async () => {
    const [row] = (await t.db("registration_roster").select("*").limit(1)) as Record<string, unknown>[];
    expect(Object.keys(row!)).toEqual(ROSTER_COLUMNS);
  });

  it("one row per athlete of the event, opening in a spreadsheet: BOM, CRLF, quoting, formulas kept as text", async () => {
    const { text, rows } = await exported({ name: "registrations", eventId: 2 });
    expect(rows).toBe(4);
    expect(text.startsWith("\uFEFF")).toBe(true);
    expect(text.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    const [header, ...records] = parseCsv(text.slice(1));
    expect(header).toEqual(ROSTER_COLUMNS);
    expect(records.map((r) => r[ROSTER_COLUMNS.indexOf("athlete_name")])).toEqual(['Ana "The Hammer" Lee', "Ben Lee", "Cal Lee", "Dee Lee"]);
    const ana = records[0]!;
    const col = (name: string) => ana[ROSTER_COLUMNS.indexOf(name)];
    expect(col("special_requirements")).toBe(`'=HYPERLINK("http://evil.example","x")`);
    expect(col("school")).toBe("North, High");
    expect(col("contact_phone")).toBe("'+1 205-555-0100");
    expect(col("days")).toBe("Saturday, June 5, Sunday, June 6");
    expect(col("amount_paid")).toBe("299.00");
    expect(col("created_at")).toBe("2027-03-01 10:00:00");
    expect(records.every((r) => r.length === ROSTER_COLUMNS.length)).toBe(true);
  });

  it("--day keeps the athletes who attend that day", async () => {
    const { rows, text } = await exported({ name: "registrations", eventId: 2, day: "2027-06-07" });
    expect(rows).toBe(3);
    expect(parseCsv(text.slice(1)).slice(1).map((r) => r[ROSTER_COLUMNS.indexOf("team_name")])).toEqual(["Steel City", "Steel City", "Steel City"]);
  });
});

describe("the other exports", () => {
  it("orders: one row per order, amounts in dollars, items counted", async () => {
    const { text, rows } = await exported({ name: "orders" });
    expect(rows).toBe(1);
    const [header, order] = parseCsv(text.slice(1));
    expect(header).toEqual(ORDER_COLUMNS);
    expect(Object.fromEntries(ORDER_COLUMNS.map((c, i) => [c, order![i]]))).toMatchObject({
      reference: "ORD-EXP1", customer_name: "Quinn Ray", items: "1", subtotal: "50.00", shipping: "7.95", total: "57.95", ship_city: "Austin",
    });
    expect((await exported({ name: "orders", from: new Date("2027-03-02T00:00:00Z") })).rows).toBe(0);
  });

  it("messages and coach requests: their columns, line breaks kept inside quotes", async () => {
    const messages = await exported({ name: "messages" });
    const [header, message] = parseCsv(messages.text.slice(1));
    expect(header).toEqual(MESSAGE_COLUMNS);
    expect(message![MESSAGE_COLUMNS.indexOf("subject")]).toBe("'+SUM(A1:A9)");
    expect(message![MESSAGE_COLUMNS.indexOf("message")]).toBe("line one\nline two, with a comma");
    const coach = await exported({ name: "coach-requests", eventId: 3 });
    expect(parseCsv(coach.text.slice(1))[0]).toEqual(COACH_REQUEST_COLUMNS);
  });
});

describe("the command", () => {
  const run = (args: string[], cwd: string) =>
    promisify(execFile)(process.execPath, [path.join(root, "src/cli/run.mjs"), "export", ...args], {
      cwd: root,
      env: { ...process.env, ...cliEnv, INIT_CWD: cwd, NODE_ENV: "test" },
    }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it("writes the file in the folder it runs from, refuses to overwrite it, and refuses bad input with one line, writing nothing", { timeout: 120_000 }, async () => {
    const out = fs.mkdtempSync(path.join(dir, "out-"));
    const ok = await run(["registrations", "--event", "2", "--format", "csv"], out);
    expect(ok).toMatchObject({ code: 0, stdout: `Wrote 4 row(s) to ${path.join(out, "registrations-event-2.csv")}.\n` });
    expect(fs.readFileSync(path.join(out, "registrations-event-2.csv"), "utf8").startsWith(`\uFEFF${ROSTER_COLUMNS.join(",")}\r\n`)).toBe(true);
    const again = await run(["registrations", "--event", "2"], out);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`${path.join(out, "registrations-event-2.csv")} exists: remove it or choose another name with --out FILE.\n`);
    const refusals = [
      [["registrations", "--event", "99"], "There is no event 99."],
      [["registrations", "--event", "2", "--day", "2027-06-09"], "Event 2 has no day 2027-06-09: its days are 2027-06-05, 2027-06-06, 2027-06-07."],
      [["registrations", "--event", "two"], "--event must be an event id (a whole number), not two."],
      [["registrations"], "registrations needs --event ID."],
      [["orders", "--format", "xlsx"], "Unknown format xlsx: only csv."],
      [["payments"], "Unknown export payments: one of registrations, orders, coach-requests, messages, waiting-list (see --help)."],
    ] as const;
    const answers = await Promise.all(refusals.map(([args]) => run([...args], out)));
    expect(answers.map((a) => ({ code: a.code, stderr: a.stderr }))).toEqual(refusals.map(([, message]) => ({ code: 1, stderr: `${message}\n` })));
    expect(fs.readdirSync(out)).toEqual(["registrations-event-2.csv"]);
    const help = await run(["--help"], out);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("npm run export -- registrations --event ID [--day YYYY-MM-DD]");
  });
});
