import { ConfigError, loadConfig, type Config } from "../config.ts";

/** The configuration an operator command runs with, or undefined once the one line saying what is wrong is printed. */
export function commandConfig(): Config | undefined {
  try {
    return loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    return undefined;
  }
}
