import { ConfigError, loadConfig, type Config } from "../config.ts";

/**
 * The configuration an operator command runs with (in production it asks for DATABASE_URL alone: a command works on
 * the database), or undefined once the one line naming every problem is printed.
 */
export function commandConfig(env: NodeJS.ProcessEnv = process.env): Config | undefined {
  try {
    return loadConfig(env, "command");
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    return undefined;
  }
}
