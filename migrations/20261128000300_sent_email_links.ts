import type { Knex } from "knex";
import { withoutLinkSecrets } from "../src/email/outbox.ts";

/**
 * E-mails already sent kept their links (manage, family, waiting-list, order status) in clear text until the
 * retention period ran out. From now on the outbox replaces them when it marks an e-mail sent; this does the same
 * for what was sent before, in batches.
 */
export async function up(knex: Knex): Promise<void> {
  let after = 0;
  for (;;) {
    const rows: { id: number; text_body: string; html_body: string | null; attachments_json: string | null }[] = await knex("email_outbox")
      .where("status", "sent")
      .andWhere("id", ">", after)
      .orderBy("id")
      .limit(500)
      .select("id", "text_body", "html_body", "attachments_json");
    if (rows.length === 0) return;
    for (const row of rows) {
      const next = {
        text_body: withoutLinkSecrets(String(row.text_body)),
        html_body: row.html_body === null ? null : withoutLinkSecrets(String(row.html_body)),
        attachments_json: row.attachments_json === null ? null : withoutLinkSecrets(typeof row.attachments_json === "string" ? row.attachments_json : JSON.stringify(row.attachments_json)),
      };
      if (next.text_body !== row.text_body || next.html_body !== row.html_body || next.attachments_json !== row.attachments_json) await knex("email_outbox").where({ id: row.id }).update(next);
    }
    after = Number(rows.at(-1)!.id);
  }
}

export async function down(): Promise<void> {
  // A removed link is not restored.
}
