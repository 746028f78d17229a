import type { Knex } from "knex";

/**
 * `email_outbox.claim_token`: the e-mails a process just committed are claimed together, by one UPDATE that writes a
 * token of that claim (src/db/jobQueue.ts). When another instance took one of them first, the claimer reads which rows
 * carry its token: those it sends, no other.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("email_outbox", (t) => {
    t.string("claim_token", 36).nullable().comment("the claim that took the e-mail together with others of its process (src/db/jobQueue.ts)");
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("email_outbox", (t) => {
    t.dropColumn("claim_token");
  });
}
