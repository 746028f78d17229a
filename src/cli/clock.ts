// `npm run clock`: moves the app's business time forward for a demo of `npm start` (deposits whose balance falls due,
// reminders): the offset goes into var/clock.json, which every instance started from this directory and the
// standalone fake Stripe read within half a second (src/clock.ts). Refused in production and with live Stripe keys.
import { ClockRefusedError, CLOCK_FILE, currentOffsetMs, followClockFile, now, parseDuration, readClockFile, writeClockFile } from "../clock.ts";

const HELP = `Usage: npm run clock -- forward DURATION | show | reset

Moves the site's clock (and the offline fake Stripe's) forward for a demo: DURATION is a number and a unit,
w (weeks), d (days), h (hours) or m (minutes), e.g. "npm run clock -- forward 14d". Every running instance
started from this directory follows within a second; "show" prints the time the site now sees, "reset" goes back
to the real time. The offset is kept in ${CLOCK_FILE}. Refused with NODE_ENV=production or live Stripe keys.`;

function main(argv: string[]): number {
  const [action, value] = argv;
  if (!action || argv.includes("--help") || argv.includes("-h")) return (console.log(HELP), action ? 0 : 1);
  try {
    if (action === "show" && argv.length === 1) {
      followClockFile();
      console.log(`The site's time is ${now().toISOString()} (${describe(currentOffsetMs())} ahead of the real time).`);
      return 0;
    }
    if (action === "reset" && argv.length === 1) {
      writeClockFile(0);
      console.log("The clock is back to the real time.");
      return 0;
    }
    if (action === "forward" && value && argv.length === 2) {
      const ms = parseDuration(value);
      if (ms === undefined || ms === 0) return (console.error(`"${value}" is not a duration such as 14d, 36h, 2w or 90m: nothing changed.`), 1);
      const offset = readClockFile() + ms;
      writeClockFile(offset);
      console.log(`The site's time is now ${new Date(Date.now() + offset).toISOString()} (${describe(offset)} ahead of the real time).`);
      return 0;
    }
  } catch (err) {
    if (err instanceof ClockRefusedError) return (console.error(`${err.message} Nothing changed.`), 1);
    throw err;
  }
  console.error(`Unknown arguments "${argv.join(" ")}": see npm run clock -- --help. Nothing changed.`);
  return 1;
}

function describe(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  const hours = Math.floor((ms % 86_400_000) / 3_600_000);
  const minutes = Math.round((ms % 3_600_000) / 60_000);
  return `${days} days ${hours} h ${minutes} min`;
}

process.exitCode = main(process.argv.slice(2));
