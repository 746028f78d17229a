/**
 * `npm test` runs the journeys in lanes: each lane is a vitest run of its own, with its own server, SQLite file, mail
 * folder and Chromium (test/e2e/globalSetup.ts), its files one after another as before. Lanes share nothing, so a
 * file that makes an event sold out or moves a count cannot touch a file of another lane, and a lane is as
 * deterministic as the single run was. The journeys mostly wait (on the server, on Chromium, on a page's own timers),
 * so two lanes on two cores take about half the time of one.
 *
 * The files are dealt to the lanes longest first, each to the lane with the least time so far, by the seconds each
 * took alone on the development machine (`TEST_REPORT_DIR`'s e2e-*.json give them). A file not in the table counts
 * as the table's median: a stale table costs only balance, never a file.
 */
import fs from "node:fs";
import path from "node:path";

const dir = path.dirname(new URL(import.meta.url).pathname);

/** Seconds per file, measured alone (one lane, nothing beside it). */
const SECONDS: Record<string, number> = {
  "apparel.e2e.ts": 30,
  "balances.e2e.ts": 28,
  "cart.e2e.ts": 44,
  "coaches.e2e.ts": 43,
  "contact.e2e.ts": 28,
  "depositTrust.e2e.ts": 23,
  "deposits.e2e.ts": 14,
  "discounts.e2e.ts": 29,
  "events.e2e.ts": 26,
  "family.e2e.ts": 14,
  "foundation.e2e.ts": 17,
  "home.e2e.ts": 28,
  "manage.e2e.ts": 27,
  "manageChanges.e2e.ts": 27,
  "paymentLayout.e2e.ts": 32,
  "phone.e2e.ts": 66,
  "phoneFeedback.e2e.ts": 24,
  "pictures.e2e.ts": 8,
  "registration.e2e.ts": 127,
  "returning.e2e.ts": 46,
  "savedCards.e2e.ts": 16,
  "screens.e2e.ts": 87,
  "shop.e2e.ts": 57,
  "siblings.e2e.ts": 18,
  "team.e2e.ts": 68,
  "teamInvite.e2e.ts": 23,
  "waitlist.e2e.ts": 77,
  "wallet.e2e.ts": 37,
};

export function journeyFiles(): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".e2e.ts"))
    .sort();
}

/** The journey files (as `test/e2e/<file>`) dealt to `count` lanes; no lane is empty while there are files. */
export function journeyLanes(count: number, files: string[] = journeyFiles()): string[][] {
  const known = Object.values(SECONDS).sort((a, b) => a - b);
  const median = known.length ? known[Math.floor(known.length / 2)]! : 1;
  const cost = (file: string) => SECONDS[file] ?? median;
  const lanes = Array.from({ length: Math.max(1, Math.min(count, files.length)) }, () => ({ files: [] as string[], seconds: 0 }));
  // Longest first, ties by name: the same files give the same lanes.
  for (const file of [...files].sort((a, b) => cost(b) - cost(a) || a.localeCompare(b))) {
    const lane = lanes.reduce((least, l) => (l.seconds < least.seconds ? l : least));
    lane.files.push(`test/e2e/${file}`);
    lane.seconds += cost(file);
  }
  return lanes.map((l) => l.files);
}
