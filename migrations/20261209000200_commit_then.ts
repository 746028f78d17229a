import type { Knex } from "knex";

/**
 * `commit_then(then)` (MySQL/MariaDB only): the statements in `then` (a JSON array of SQL texts: writes a transaction
 * deferred to its end, src/db/deferredWrites.ts, such as a settlement's manage link) run in order, each as a prepared
 * statement (`run_statements`, migrations/20261209000100_admit_places_then.ts), then COMMIT, in one round trip in
 * place of knex's COMMIT. A statement that fails ends the call with its error, the transaction still open: knex then
 * rolls it back.
 */
export async function up(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  await knex.raw("drop procedure if exists commit_then");
  await knex.raw(`
    create procedure commit_then(in p_then longtext)
    modifies sql data
    begin
      call run_statements(p_then);
      commit;
    end`);
}

export async function down(knex: Knex): Promise<void> {
  if (isMysql(knex)) await knex.raw("drop procedure if exists commit_then");
}

const isMysql = (knex: Knex) => (knex.client as Knex.Client).config.client === "mysql2";
