import type { Knex } from "knex";

/**
 * `begin_hold(session, address, now)` (MySQL/MariaDB only): a new hold's BEGIN, the visitor's lock and the visitor's
 * places held in one round trip (src/registrations/core/tables/holds.ts: beginHold). It starts the transaction the
 * hold goes on in (knex sends no BEGIN of its own for it: src/db/serverBegins.ts), locks the visitor's rows as
 * lockVisitor does (insert or touch, in key order) and answers what placesHeldBy answers, read after that lock.
 * The hashes are hex (ascii): compared with the columns in the columns' own collation, whatever the database's is.
 * SQLite keeps BEGIN and the two statements.
 */
export async function up(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  await knex.raw("drop procedure if exists begin_hold");
  await knex.raw(`
    create procedure begin_hold(in p_session varchar(64) character set ascii, in p_address varchar(64) character set ascii, in p_now datetime(3))
    modifies sql data
    begin
      start transaction;
      if p_session = p_address then
        insert into hold_visitors (holder) values (p_session) on duplicate key update holder = values(holder);
      else
        insert into hold_visitors (holder) values (least(p_session, p_address)), (greatest(p_session, p_address))
          on duplicate key update holder = values(holder);
      end if;
      select coalesce(sum(by_session), 0) as by_session, coalesce(sum(by_address), 0) as by_address from (
        select coalesce(sum(case when holder_session = p_session then places else 0 end), 0) as by_session,
               coalesce(sum(case when holder_address = p_address then places else 0 end), 0) as by_address
          from registrations
          where status = 'pending_payment' and reserved_until > p_now and (holder_session = p_session or holder_address = p_address)
        union all
        select coalesce(sum(case when holder_session = p_session then places else 0 end), 0),
               coalesce(sum(case when holder_address = p_address then places else 0 end), 0)
          from registration_changes
          where status = 'pending' and reserved_until > p_now and (holder_session = p_session or holder_address = p_address)
      ) held;
    end`);
}

export async function down(knex: Knex): Promise<void> {
  if (isMysql(knex)) await knex.raw("drop procedure if exists begin_hold");
}

const isMysql = (knex: Knex) => (knex.client as Knex.Client).config.client === "mysql2";
