import type { Knex } from "knex";

/**
 * `admit_places(event, places)` (MySQL/MariaDB only): a hold's admission and its COMMIT in one round trip
 * (src/events/places.ts: admitPlaces). The count's row is locked by the UPDATE and released by the COMMIT inside the
 * server, so no hold keeps it while its instance gets round to sending COMMIT (measured: on a loaded machine that
 * turnaround, not the statement, made the row's queue). Nothing is committed when no row changed: the caller rolls
 * back. SQLite runs one writer at a time and keeps the plain UPDATE.
 */
export async function up(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  await knex.raw("drop procedure if exists admit_places");
  await knex.raw(`
    create procedure admit_places(in p_event int, in p_places int)
    modifies sql data
    begin
      declare admitted int default 0;
      update event_places set taken = taken + p_places
        where event_id = p_event
          and taken + p_places <= (select capacity from events where id = p_event)
          and not exists (select 1 from waiting_list_entries where event_id = p_event and status = 'waiting');
      set admitted = row_count();
      if admitted = 1 then
        commit;
      end if;
      select admitted;
    end`);
}

export async function down(knex: Knex): Promise<void> {
  if (isMysql(knex)) await knex.raw("drop procedure if exists admit_places");
}

const isMysql = (knex: Knex) => (knex.client as Knex.Client).config.client === "mysql2";
