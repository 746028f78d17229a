import { randomFillSync } from "node:crypto";

/**
 * Random ids for every visitor's first request (the CSRF visitor id, the session id express-session makes even
 * for a session it never stores): drawn from a pool refilled from the system's secure generator 8 KB at a time,
 * as Node's own randomUUID does, since one generator call per request costs more than the rest of a kept page.
 * Bytes are handed out once and never reused.
 */
const pool = Buffer.alloc(8 * 1024);
let offset = pool.length;

export function randomId(bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString("base64url", offset, offset + bytes);
  offset += bytes;
  return id;
}
