/**
 * `npm test` runs the journeys in lanes: each lane is a vitest run of its own, with its own server, SQLite file, mail
 * folder and Chromium (test/e2e/globalSetup.ts), its files one after another as before. Lanes share nothing, so a
 * file that makes an event sold out or moves a count cannot touch a file of another lane, and a lane is as
 * deterministic as the single run was. The journeys mostly wait (on the server, on Chromium, on a page's own timers),
 * so two lanes on two cores take about half the time of one.
 *
 * The files are dealt to the lanes longest first, each to the lane with the least time so far, by the seconds each
 * took in a lane of `npm test` (`TEST_REPORT_DIR`'s e2e-*.json give them; only their ratios matter). A file not in
 * the table counts as the table's median: a stale table costs only balance, never a file.
 */
import fs from "node:fs";
import path from "node:path";

const dir = path.dirname(new URL(import.meta.url).pathname);

/** Seconds per file in a lane of `npm test`, 2026-11-28, on a machine loaded far beyond its 2 cores (phone: without its two timeouts). */
const SECONDS: Record<string, number> = {
  "apparel.e2e.ts": 203,
  "balances.e2e.ts": 126,
  "cart.e2e.ts": 217,
  "coaches.e2e.ts": 160,
  "contact.e2e.ts": 130,
  "depositTrust.e2e.ts": 63,
  "deposits.e2e.ts": 64,
  "discounts.e2e.ts": 170,
  "events.e2e.ts": 167,
  "family.e2e.ts": 53,
  "foundation.e2e.ts": 174,
  "home.e2e.ts": 187,
  "manage.e2e.ts": 247,
  "manageChanges.e2e.ts": 257,
  "paymentLayout.e2e.ts": 160,
  "phone.e2e.ts": 500,
  "phoneFeedback.e2e.ts": 63,
  "pictures.e2e.ts": 44,
  "registration.e2e.ts": 440,
  "returning.e2e.ts": 219,
  "savedCards.e2e.ts": 5,
  "screens.e2e.ts": 409,
  "shop.e2e.ts": 379,
  "siblings.e2e.ts": 31,
  "team.e2e.ts": 309,
  "teamInvite.e2e.ts": 157,
  "waitlist.e2e.ts": 285,
  "wallet.e2e.ts": 155,
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
