// `npm run erase -- --email ADDRESS [--dry-run]`: a person's data erased on request (src/privacy/erase.ts).
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as z from "zod";
import { commandConfig } from "./commandConfig.ts";
import { createDb } from "../db/knex.ts";
import { erasePerson } from "../privacy/erase.ts";

const HELP = `Usage: npm run erase -- --email ADDRESS [--dry-run]

Erases the person with this e-mail address (any letter case): deletes their contact messages, quote requests,
newsletter sign-up, coach requests with their logos, and the e-mails sent to or about them; anonymises their orders,
registrations and the athletes of those registrations (name, e-mail, phone, address lines, school, club, sizes,
emergency contact, special requirements), keeping amounts, dates, statuses and references for the tax records.
--dry-run counts what would change and changes nothing.`;

export function parseEraseArgs(argv: string[]): { email: string; dryRun: boolean } | { help: true } | { error: string } {
  if (argv.includes("--help") || argv.includes("-h")) return { help: true };
  let email: string | undefined;
  let dryRun = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--dry-run") dryRun = true;
    else if (arg === "--email") {
      if (email !== undefined) return { error: "--email is given twice." };
      email = argv[++i];
      if (email === undefined || email.startsWith("--")) return { error: "--email needs an address." };
    } else return { error: `Unknown argument ${arg} (see --help).` };
  }
  if (email === undefined) return { error: "Name the person: --email ADDRESS (see --help)." };
  if (!z.email().safeParse(email.trim()).success) return { error: `${email} is not an e-mail address.` };
  return { email: email.trim(), dryRun };
}

async function main(argv: string[]): Promise<number> {
  const cmd = parseEraseArgs(argv);
  if ("help" in cmd) return (console.log(HELP), 0);
  if ("error" in cmd) return (console.error(cmd.error), 1);
  const config = commandConfig();
  if (!config) return 1;
  const db = createDb(config.database);
  try {
    const counts = await erasePerson(db, cmd.email, { dryRun: cmd.dryRun });
    const summary = Object.entries(counts).map(([k, n]) => `${k} ${n}`).join(", ");
    console.log(`${cmd.dryRun ? "Would change" : "Erased"}: ${summary}.`);
    return 0;
  } catch (err) {
    console.error(`Nothing was changed: ${(err as Error).message.split("\n")[0]}`);
    return 1;
  } finally {
    await db.destroy();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
