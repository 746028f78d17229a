/** Accepted school logos: a row of `stored_files` (every app instance reads it), never served by the site. */
import type { Knex } from "knex";
import { storeFile } from "../db/storedFiles.ts";
import { LOGO_TYPES, type LogoType } from "../shared/collegeCoachRequests/rules.ts";

export interface StoredLogo {
  /** The stored file's random name (what the coach_requests row keeps). */
  file: string;
  type: LogoType;
  contentType: (typeof LOGO_TYPES)[LogoType];
  bytes: number;
}

/** Stores the logo in the request's transaction: it exists exactly when the request does. */
export async function storeLogo(trx: Knex.Transaction, content: Buffer, type: LogoType): Promise<StoredLogo> {
  const stored = await storeFile(trx, { content, contentType: LOGO_TYPES[type], extension: type });
  return { file: stored.name, type, contentType: LOGO_TYPES[type], bytes: stored.bytes };
}
