import type { Knex } from "knex";
import { up as restoreAdmitPlacesOrWhy } from "./20261207000100_admit_places_or_why.ts";

/**
 * `admit_places_then(event, places, now, then)` (MySQL/MariaDB only): `admit_places_or_why`, and when the places are
 * taken, the statements in `then` (a JSON array of SQL texts: the writes a hold deferred to its admission,
 * src/db/deferredWrites.ts) run before the COMMIT, in order, each as a prepared statement (`run_statements`). A
 * hold's athletes and days so cost no round trip of their own, and a refused hold never sends them. The event's count
 * row stays locked from the UPDATE to the COMMIT, inside the server only. A statement of `then` that fails ends the
 * call with its error, the transaction still open: the caller rolls it back, the count's change with it.
 * `admit_places_or_why`, which instances of the previous release call during a rolling deploy, becomes this one with
 * no writes, so that one admission is in the schema. SQLite sends the writes itself.
 */
export async function up(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  await knex.raw("drop procedure if exists run_statements");
  // The statements of a JSON array of SQL texts, in order, each prepared and executed (also commit_then's).
  await knex.raw(`
    create procedure run_statements(in p_statements longtext)
    modifies sql data
    begin
      declare i int default 0;
      while i < json_length(p_statements) do
        set @run_statement = json_unquote(json_extract(p_statements, concat('$[', i, ']')));
        prepare run_statement from @run_statement;
        execute run_statement;
        deallocate prepare run_statement;
        set i = i + 1;
      end while;
      set @run_statement = null;
    end`);
  await knex.raw("drop procedure if exists admit_places_then");
  await knex.raw(`
    create procedure admit_places_then(in p_event int, in p_places int, in p_now datetime(3), in p_then longtext)
    modifies sql data
    begin
      update event_places set taken = taken + p_places
        where event_id = p_event
          and taken + p_places <= (select capacity from events where id = p_event)
          and not exists (select 1 from waiting_list_entries where event_id = p_event and status = 'waiting');
      if row_count() = 1 then
        call run_statements(p_then);
        commit;
        select 1 as admitted;
      else
        rollback;
        select 0 as admitted,
          (select capacity from events where id = p_event) as capacity,
          (select taken from event_places where event_id = p_event) as taken,
          exists (select 1 from waiting_list_entries where event_id = p_event and status = 'waiting') as line_waits,
          exists (select 1 from registrations where event_id = p_event and status = 'pending_payment' and reserved_until <= p_now)
            or exists (select 1 from registration_changes where event_id = p_event and status = 'pending' and reserved_until <= p_now) as lapsed;
      end if;
    end`);
  await knex.raw("drop procedure if exists admit_places_or_why");
  await knex.raw(`
    create procedure admit_places_or_why(in p_event int, in p_places int, in p_now datetime(3))
    modifies sql data
    begin
      call admit_places_then(p_event, p_places, p_now, '[]');
    end`);
}

export async function down(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  await restoreAdmitPlacesOrWhy(knex);
  await knex.raw("drop procedure if exists admit_places_then");
  await knex.raw("drop procedure if exists run_statements");
}

const isMysql = (knex: Knex) => (knex.client as Knex.Client).config.client === "mysql2";
