// `npm run retention`: deletes what the privacy page's periods have run out for (src/privacy/retention.ts). Each
// instance also runs it once a day; running it from cron as well, or twice, is harmless.
import { commandConfig } from "./commandConfig.ts";
import { createDb } from "../db/knex.ts";
import { applyRetention } from "../privacy/retention.ts";

const HELP = `Usage: npm run retention

Deletes sent e-mails after 90 days, contact messages, quote requests and coach requests (with their logos) after
2 years, orders with their payments 7 years after the order, and registrations with their payments 7 years after
the camp (the privacy page's periods), then prints what it deleted. Takes no other argument.`;

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) return (console.log(HELP), 0);
  if (argv.length) return (console.error(`Unknown argument ${argv[0]!}: retention takes none (see --help).`), 1);
  const config = commandConfig();
  if (!config) return 1;
  const db = createDb(config.database);
  try {
    const counts = await applyRetention(db, new Date());
    console.log(`Deleted: ${Object.entries(counts).map(([k, n]) => `${k} ${n}`).join(", ")}.`);
    return 0;
  } catch (err) {
    console.error(`Retention failed: ${(err as Error).message.split("\n")[0]}`);
    return 1;
  } finally {
    await db.destroy();
  }
}

process.exitCode = await main(process.argv.slice(2));
