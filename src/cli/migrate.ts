// `npm run migrate`: the release step. Runs the pending migrations once, with the app's configuration, and exits;
// safe to run while instances start (they wait for the same lock) and safe to run twice (nothing left to run).
import { ConfigError, loadConfig } from "../config.ts";
import { createLogger } from "../logger.ts";
import { createDb, migrateLatest } from "../db/knex.ts";

const HELP = `Usage: npm run migrate

Runs the database migrations that have not run yet (DATABASE_URL, or the embedded SQLite file) and exits 0.
It needs DATABASE_URL alone, in production too. The knex CLI runs the same migrations through knexfile.ts.
Waits up to MIGRATION_LOCK_WAIT_MS (default 120000) while another process migrates. Logs JSON lines.`;

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(HELP);
    return 0;
  }
  const logger = createLogger("info");
  if (argv.length > 0) {
    logger.fatal({ step: "arguments", reason: `unknown argument ${argv[0]!}` }, "migrate failed: it takes no arguments (see --help)");
    return 1;
  }
  let config;
  try {
    config = loadConfig(process.env, "command");
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    logger.fatal({ step: "configuration", reason: err.message }, `migrate failed: ${err.message}`);
    return 1;
  }
  const db = createDb(config.database, logger);
  try {
    const ran = await migrateLatest(db, { logger, lockWaitMs: config.migrationLockWaitMs });
    logger.info({ ran: ran.length, migrations: ran }, ran.length ? `ran ${ran.length} migration(s)` : "the database is up to date");
    return 0;
  } catch (err) {
    const reason = (err instanceof Error ? err.message : String(err)).split("\n")[0]!;
    logger.fatal({ step: "database", reason }, `migrate failed: ${reason}`);
    return 1;
  } finally {
    await db.destroy();
  }
}

process.exitCode = await main(process.argv.slice(2));
