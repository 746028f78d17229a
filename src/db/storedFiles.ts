/** Files kept in the database (`stored_files`), so that every app instance reads what any of them received. */
import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import type { Db } from "./knex.ts";

export interface StoredFile {
  /** The random name the rows that use the file keep. */
  name: string;
  contentType: string;
  bytes: number;
}

/** Stores `content` under a new random name with the given extension, in the caller's transaction. */
export async function storeFile(trx: Knex | Knex.Transaction, file: { content: Buffer; contentType: string; extension: string }): Promise<StoredFile> {
  const name = `${randomBytes(16).toString("hex")}.${file.extension}`;
  await trx("stored_files").insert({ name, content_type: file.contentType, bytes: file.content.length, content: file.content, created_at: new Date() });
  return { name, contentType: file.contentType, bytes: file.content.length };
}

export async function readStoredFile(db: Db | Knex.Transaction, name: string): Promise<(StoredFile & { content: Buffer }) | undefined> {
  const row = (await db("stored_files").where({ name }).first()) as { name: string; content_type: string; bytes: number; content: Buffer } | undefined;
  return row ? { name: row.name, contentType: row.content_type, bytes: Number(row.bytes), content: Buffer.from(row.content) } : undefined;
}

export async function deleteStoredFiles(trx: Knex | Knex.Transaction, names: string[]): Promise<number> {
  return names.length ? trx("stored_files").whereIn("name", names).delete() : 0;
}
