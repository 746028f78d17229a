import type { Knex } from "knex";

/**
 * `commit_then(then)` (MySQL/MariaDB only): the statements in `then` (a JSON array of SQL texts: writes a transaction
 * deferred to its end, src/db/deferredWrites.ts, such as a settlement's manage link) run in order, each as a prepared
 * statement, then COMMIT, in one round trip in place of knex's COMMIT. A statement that fails ends the call with its
 * error, the transaction still open: knex then rolls it back.
 */
export async function up(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  await knex.raw("drop procedure if exists commit_then");
  await knex.raw(`
    create procedure commit_then(in p_then longtext)
    modifies sql data
    begin
      declare i int default 0;
      while i < json_length(p_then) do
        set @commit_then = json_unquote(json_extract(p_then, concat('$[', i, ']')));
        prepare commit_then_write from @commit_then;
        execute commit_then_write;
        deallocate prepare commit_then_write;
        set i = i + 1;
      end while;
      set @commit_then = null;
      commit;
    end`);
}

export async function down(knex: Knex): Promise<void> {
  if (isMysql(knex)) await knex.raw("drop procedure if exists commit_then");
}

const isMysql = (knex: Knex) => (knex.client as Knex.Client).config.client === "mysql2";
