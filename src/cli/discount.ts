/**
 * Operators' discount codes: `npm run discount -- create SUMMER10 --percent 10 --max 50 --expires 2027-06-01`,
 * `list`, `deactivate CODE`. Uses the app's configuration (DATABASE_URL or the embedded SQLite file).
 * Bad input prints one clear line and changes nothing (exit 1).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Db } from "../db/knex.ts";
import { commandConfig } from "./commandConfig.ts";
import { createDb, migrateLatest } from "../db/knex.ts";
import { formatPrice } from "../shared/money.ts";
import { describeValue } from "../shared/discounts/rules.ts";
import * as repo from "../discounts/repository.ts";
import { parseDiscountArgs, USAGE, type DiscountCommand } from "./discountArgs.ts";

class CliError extends Error {}

/** '2027-06-01' for a midnight UTC, else the exact time. */
const day = (d: Date | null) => (d ? d.toISOString().replace("T00:00:00.000Z", "").replace(".000Z", "Z") : "");

/** The window as operators wrote it: an expiry at midnight UTC shows as the last valid day. */
function windowText(startsAt: Date | null, expiresAt: Date | null): string {
  const last = expiresAt && expiresAt.toISOString().endsWith("T00:00:00.000Z") ? new Date(expiresAt.getTime() - 86_400_000).toISOString().slice(0, 10) : day(expiresAt);
  if (!startsAt && !expiresAt) return "always";
  return `${startsAt ? day(startsAt) : "now"} to ${expiresAt ? last : "no expiry"}`;
}

export async function runDiscountCommand(db: Db, cmd: Exclude<DiscountCommand, { error: string }>, now: Date): Promise<string> {
  switch (cmd.command) {
    case "create": {
      const c = cmd.code;
      if (c.eventId !== null && !(await db("events").where({ id: c.eventId }).first("id"))) throw new CliError(`There is no event ${c.eventId}.`);
      if (await repo.findCode(db, c.code)) throw new CliError(`A code ${c.code} already exists (codes are the same whatever their case).`);
      try {
        await repo.insertCode(db, c, now);
      } catch (err) {
        if (await repo.findCode(db, c.code)) throw new CliError(`A code ${c.code} already exists (codes are the same whatever their case).`);
        throw err;
      }
      const limit = c.maxRedemptions === null ? "no limit" : `${c.maxRedemptions} ${c.maxRedemptions === 1 ? "use" : "uses"}`;
      return `Created ${c.code}: ${describeValue(c)}, ${limit}, ${windowText(c.startsAt, c.expiresAt)}, ${c.eventId === null ? "every event" : `event ${c.eventId}`}, ${c.kind === "both" ? "individual and team registrations" : `${c.kind} registrations`}.`;
    }
    case "list": {
      const codes = await repo.listCodes(db, now);
      if (codes.length === 0) return "No discount codes yet. Create one with: npm run discount -- create CODE --percent 10";
      const head = ["code", "value", "held", "redeemed", "limit", "window", "event", "for", "active"];
      const rows = codes.map((c) => [
        c.code,
        c.type === "percent" ? `${c.value}%` : formatPrice(c.value),
        String(c.held),
        String(c.redeemed),
        c.maxRedemptions === null ? "none" : String(c.maxRedemptions),
        windowText(c.startsAt, c.expiresAt),
        c.eventId === null ? "all" : String(c.eventId),
        c.kind,
        c.active ? "yes" : "no",
      ]);
      const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
      return [head, ...rows].map((r) => r.map((v, i) => v.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n");
    }
    case "deactivate": {
      if (!(await repo.deactivateCode(db, cmd.code))) throw new CliError(`There is no code ${cmd.code}.`);
      return `Deactivated ${cmd.code}: it can no longer be applied or used for a free registration.`;
    }
  }
}

async function main(): Promise<number> {
  const now = new Date();
  const argv = process.argv.slice(2);
  if (argv.includes("--help") || argv.includes("-h")) return (console.log(USAGE), 0);
  const cmd = parseDiscountArgs(argv, now);
  if ("error" in cmd) {
    console.error(cmd.error);
    return 1;
  }
  const config = commandConfig();
  if (!config) return 1;
  const db = createDb(config.database);
  try {
    await migrateLatest(db);
    console.log(await runDiscountCommand(db, cmd, now));
    return 0;
  } catch (err) {
    console.error(err instanceof CliError ? err.message : `Could not reach the database: ${(err as Error).message}`);
    return 1;
  } finally {
    await db.destroy();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await main();
