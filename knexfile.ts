// Used by the knex CLI: `npm run migrate` (reads the same environment as the app).
import { loadConfig } from "./src/config.ts";
import { knexOptions } from "./src/db/knex.ts";

export default knexOptions(loadConfig().database);
