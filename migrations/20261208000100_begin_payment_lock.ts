import type { Knex } from "knex";

/**
 * `begin_payment_lock(payment)` (MySQL/MariaDB only): a settlement's BEGIN and its lock on the payment's row in one
 * round trip (src/payments/core.ts: settleOnce; src/db/serverBegins.ts). It starts the transaction the settlement goes
 * on in and answers the row, locked, as `SELECT ... FOR UPDATE` does. Every card payment is settled once (its return,
 * or its webhook): on opening day, one round trip less for each, on a busy event loop. SQLite keeps BEGIN and the lock.
 */
export async function up(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  await knex.raw("drop procedure if exists begin_payment_lock");
  await knex.raw(`
    create procedure begin_payment_lock(in p_payment int)
    modifies sql data
    begin
      start transaction;
      select * from payments where id = p_payment for update;
    end`);
}

export async function down(knex: Knex): Promise<void> {
  if (isMysql(knex)) await knex.raw("drop procedure if exists begin_payment_lock");
}

const isMysql = (knex: Knex) => (knex.client as Knex.Client).config.client === "mysql2";
