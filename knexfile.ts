/**
 * The knex CLI's configuration, for admins who know it: `npx knex migrate:status`, `npx knex migrate:list`,
 * `npx knex migrate:make name -x ts` (the CLI runs TypeScript through tsx). The same settings as the app and
 * `npm run migrate` (src/db/knex.ts), read from the same environment: DATABASE_URL, or the embedded SQLite file.
 */
import { loadConfig } from "./src/config.ts";
import { knexOptions } from "./src/db/knex.ts";

export default knexOptions(loadConfig(process.env, "command").database);
