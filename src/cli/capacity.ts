/**
 * `npm run capacity -- EVENT_ID PLACES`: sets an event's capacity (the places it sells). Raised, the new places go to
 * the waiting list first: the running site offers them within seconds. Uses the app's configuration (DATABASE_URL
 * or the embedded SQLite file); bad input prints one clear line and changes nothing (exit 1).
 * `npm run capacity -- check`: compares every event's count of places taken with its rows (src/events/places.ts),
 * prints each difference and exits 1 on any; changes nothing.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { commandConfig } from "./commandConfig.ts";
import { createDb, migrateLatest, type Db } from "../db/knex.ts";
import { placesDrift, type PlacesDrift } from "../events/places.ts";
import { setCapacity } from "../registrations/waitlist/capacity.ts";
import { createLogger } from "../logger.ts";
import { announceCommandChanges } from "./announceChanges.ts";

export const CAPACITY_USAGE = "Usage: npm run capacity -- EVENT_ID PLACES   (PLACES: a whole number from 1 to 100000)\n       npm run capacity -- check   (every event's count of places taken against its rows)";

export function parseCapacityArgs(argv: string[]): { eventId: number; capacity: number } | { check: true } | { error: string } {
  if (argv.length === 1 && argv[0] === "check") return { check: true };
  const [event, places, ...rest] = argv;
  if (!event || !places || rest.length > 0) return { error: CAPACITY_USAGE };
  if (!/^[1-9]\d{0,8}$/.test(event)) return { error: `EVENT_ID must be an event id (a whole number), not ${event}.` };
  if (!/^[1-9]\d{0,5}$/.test(places) || Number(places) > 100_000) return { error: `PLACES must be a whole number from 1 to 100000, not ${places}.` };
  return { eventId: Number(event), capacity: Number(places) };
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.includes("--help") || argv.includes("-h")) return (console.log(CAPACITY_USAGE), 0);
  const cmd = parseCapacityArgs(argv);
  if ("error" in cmd) {
    console.error(cmd.error);
    return 1;
  }
  const config = commandConfig();
  if (!config) return 1;
  const db = createDb(config.database);
  // Every running instance shows the new places at its next request.
  const announced = announceCommandChanges(config, db, createLogger("error", pino.destination(2)));
  try {
    await migrateLatest(db);
    if ("check" in cmd) return await checkCounts(db);
    const done = await setCapacity(db, cmd.eventId, cmd.capacity, new Date());
    if (!done.ok) {
      console.error(done.reason);
      return 1;
    }
    console.log(`Event ${cmd.eventId}: capacity ${done.from} -> ${done.to}.${done.roundAsked ? " The waiting list is offered the new places." : ""}`);
    return 0;
  } catch (err) {
    console.error(`Could not reach the database: ${(err as Error).message}`);
    return 1;
  } finally {
    await announced.settled();
    await db.destroy();
  }
}

/** The check: one line per event whose count is not what its rows say; exit 1 on any. */
async function checkCounts(db: Db): Promise<number> {
  const drift = await placesDrift(db);
  for (const d of drift) console.log(checkLine(d));
  if (drift.length > 0) return 1;
  console.log("Every event's count of places taken matches its registrations.");
  return 0;
}

export function checkLine(d: PlacesDrift): string {
  return `Event ${d.eventId}: counted ${d.counted} places taken, its registrations hold ${d.rows} (capacity ${d.capacity}).`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await main();
