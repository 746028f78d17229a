import type { Knex } from "knex";

/**
 * `admit_places_with_code(...)` (MySQL/MariaDB only): a new hold's code use and its admission, and their COMMIT, in one
 * round trip (src/registrations/core/money/codeLast.ts). A code many families enter (the opening's "10% off for the
 * first 60") is a limit they all share: its row was locked from the hold's first statement to its COMMIT, and a
 * rush's busy event loop stretched that to seconds for every family behind it (measured: code holds p50 4.5 s
 * against 1.3 s). Here the code's row is locked, its uses counted as usesTaken counts them, the use written and the
 * places taken as admit_places takes them, and COMMIT sent, all inside the server.
 * The hold read the code without a lock at its start and priced on it: the row, once locked, must still be usable
 * now at that type and value for this event and kind, or nothing is written ('changed': the hold runs again and reads
 * it anew). Answers one row: outcome 'admitted' (committed), 'full', 'used_up' or 'changed' (rolled back inside the
 * server too: the code's row is not kept locked until the caller's ROLLBACK arrives, which it would be once the code
 * is used up and every family still entering it is refused). SQLite keeps the statements (codeLast.ts); it runs one writer at a time.
 */
export async function up(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  await knex.raw("drop procedure if exists admit_places_with_code");
  await knex.raw(`
    create procedure admit_places_with_code(in p_event int, in p_places int, in p_code int, in p_registration int, in p_off int,
      in p_type varchar(10) character set ascii, in p_value int, in p_kind varchar(20) character set ascii, in p_now datetime(3))
    modifies sql data
    begin
      declare v_max int default null;
      declare v_usable int default 0;
      declare v_taken int default 0;
      declare v_outcome varchar(10) default 'full';
      declare continue handler for not found set v_usable = 0;
      select max_redemptions,
             active = 1 and discount_type = p_type and value = p_value and (event_id is null or event_id = p_event)
               and kind in ('both', p_kind) and (starts_at is null or starts_at <= p_now) and (expires_at is null or p_now < expires_at)
        into v_max, v_usable
        from discount_codes where id = p_code for update;
      if not coalesce(v_usable, 0) then
        set v_outcome = 'changed';
      else
        if v_max is not null then
          select count(*) into v_taken
            from discount_redemptions dr join registrations r on r.id = dr.registration_id
            where dr.discount_code_id = p_code and dr.registration_id <> p_registration
              and (dr.status = 'redeemed' or (dr.status = 'held' and r.status = 'pending_payment' and r.reserved_until > p_now));
        end if;
        if v_max is not null and v_taken >= v_max then
          set v_outcome = 'used_up';
        else
          insert into discount_redemptions (registration_id, discount_code_id, amount_off_cents, status, created_at, updated_at)
            values (p_registration, p_code, p_off, 'held', p_now, p_now)
            on duplicate key update discount_code_id = values(discount_code_id), amount_off_cents = values(amount_off_cents),
              status = values(status), updated_at = values(updated_at);
          update event_places set taken = taken + p_places
            where event_id = p_event
              and taken + p_places <= (select capacity from events where id = p_event)
              and not exists (select 1 from waiting_list_entries where event_id = p_event and status = 'waiting');
          if row_count() = 1 then
            set v_outcome = 'admitted';
            commit;
          end if;
        end if;
      end if;
      if v_outcome <> 'admitted' then
        rollback;
      end if;
      select v_outcome as outcome;
    end`);
}

export async function down(knex: Knex): Promise<void> {
  if (isMysql(knex)) await knex.raw("drop procedure if exists admit_places_with_code");
}

const isMysql = (knex: Knex) => (knex.client as Knex.Client).config.client === "mysql2";
