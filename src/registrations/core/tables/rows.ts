import type { Knex } from "knex";
import type { Db } from "../../../db/knex.ts";
import { toText } from "../../../shared/toText.ts";

/** What the kernel's table modules share: a connection or transaction, a row as read, a nullable text column. */

export type Conn = Db | Knex.Transaction;
export type Row = Record<string, unknown>;
export const str = (v: unknown) => (v === null || v === undefined ? null : toText(v));
