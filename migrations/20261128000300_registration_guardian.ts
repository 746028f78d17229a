import type { Knex } from "knex";

/**
 * An individual athlete under 18 registers with a parent or guardian contact (README: the individual form): their
 * name, e-mail and phone. When present, that person is who the registration's e-mails greet and go to; NULL for an
 * athlete of 18 or more (the form's "The athlete is 18 or older" box), for teams (the coach is the contact and each
 * athlete's parent is on the roster) and for registrations made before this column.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("registrations", (t) => {
    t.string("guardian_name", 160).nullable().comment("an individual athlete's parent or guardian (under 18)");
    t.string("guardian_email", 254).nullable().comment("where the registration's e-mails go when a guardian is named");
    t.string("guardian_phone", 40).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("registrations", (t) => {
    t.dropColumn("guardian_name");
    t.dropColumn("guardian_email");
    t.dropColumn("guardian_phone");
  });
}
