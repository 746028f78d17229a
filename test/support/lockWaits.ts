import type { Knex } from "knex";

/**
 * Until a transaction of this database waits for a row lock (a guard against a hang, not a timing). MariaDB 10.11
 * may take a unique key's row lock while it plans the statement ("Statistics"), before the transaction shows in
 * innodb_trx: a locking read of this database under way on another connection counts as waiting too (MySQL only).
 */
export async function someoneWaits(db: Knex): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    const [rows] = (await db.raw(
      "select (select count(*) from information_schema.innodb_trx where trx_state = 'LOCK WAIT') + " +
        "(select count(*) from information_schema.processlist where id <> connection_id() and db = database() and info like '%for update%') as n",
    )) as unknown as [{ n: number }[]];
    if (Number(rows[0]!.n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("no transaction waits for the lock");
}
