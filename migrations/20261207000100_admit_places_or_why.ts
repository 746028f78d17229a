import type { Knex } from "knex";

/**
 * `admit_places_or_why(event, places, now)` (MySQL/MariaDB only): a hold's admission as `admit_places` decides it, and
 * when it is refused, why, in the same round trip (src/events/places.ts: admitPlaces). Admitted: COMMIT inside the
 * server, as before. Refused: ROLLBACK inside the server (the caller sends none), and the row answers what the hold
 * decides next on: the places free by the count, whether a count exists, whether anyone waits in the line, and whether
 * lapsed holds or changes could give places back. A refused hold (every family after the places are gone, on opening
 * day) took four round trips after the call for that: its ROLLBACK and two reads.
 * `admit_places` stays for instances of the previous release during a rolling deploy. SQLite keeps the statements.
 */
export async function up(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  await knex.raw("drop procedure if exists admit_places_or_why");
  await knex.raw(`
    create procedure admit_places_or_why(in p_event int, in p_places int, in p_now datetime(3))
    modifies sql data
    begin
      update event_places set taken = taken + p_places
        where event_id = p_event
          and taken + p_places <= (select capacity from events where id = p_event)
          and not exists (select 1 from waiting_list_entries where event_id = p_event and status = 'waiting');
      if row_count() = 1 then
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
}

export async function down(knex: Knex): Promise<void> {
  if (isMysql(knex)) await knex.raw("drop procedure if exists admit_places_or_why");
}

const isMysql = (knex: Knex) => (knex.client as Knex.Client).config.client === "mysql2";
