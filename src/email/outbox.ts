import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import type { Logger } from "../logger.ts";
import { maskEmail, urlForLog } from "../logger.ts";
import { createJobQueue, type JobQueue } from "../db/jobQueue.ts";
import { readStoredFile } from "../db/storedFiles.ts";
import type { MailAttachment, MailMessage, MailTransport, SendableAttachment } from "./transport.ts";
import { toText } from "../shared/toText.ts";
import { noteQueued, takeCommitted } from "./committedEmails.ts";

/** What a feature queues: the message without its sender, plus what it is about. */
export interface OutgoingEmail extends Omit<MailMessage, "from" | "attachments"> {
  kind: string;
  reference?: string;
  attachments?: MailAttachment[];
}

/** A stored file is read when the e-mail is sent; one that is gone fails the attempt (retried, then `failed`). */
async function sendable(db: Db, attachments: MailAttachment[]): Promise<SendableAttachment[]> {
  return Promise.all(
    attachments.map(async (a): Promise<SendableAttachment> => {
      if (a.storedFile === undefined) return a.path !== undefined ? { filename: a.filename, contentType: a.contentType, path: a.path } : { filename: a.filename, contentType: a.contentType, content: a.content };
      const file = await readStoredFile(db, a.storedFile);
      if (!file) throw new Error(`stored file ${a.storedFile} is gone`);
      return { filename: a.filename, contentType: a.contentType, content: file.content };
    }),
  );
}

/**
 * Writes the e-mail in the caller's transaction, so it exists exactly when the fact it announces does.
 * Call outbox.wake() after the transaction commits to send it at once (claimed by its id: committedEmails.ts).
 */
export async function enqueueEmail(trx: Knex | Knex.Transaction, email: OutgoingEmail): Promise<number> {
  const row = outboxRow(email, new Date());
  const [id] = await trx("email_outbox").insert(row);
  noteQueued(trx, { ...row, id: Number(id), attempts: 0 });
  return Number(id);
}

/**
 * Several e-mails written by one statement, in their order (enqueueEmail's promise for each). Their ids are inferred
 * (consecutive: SQLite answers the last, MySQL the first); the outbox claims a handed-over e-mail only if its row
 * still holds its recipient, subject and kind, so a wrong guess (gaps between ids) leaves it to a pass, never sends it wrong.
 */
export async function enqueueEmails(trx: Knex | Knex.Transaction, emails: readonly OutgoingEmail[]): Promise<void> {
  if (emails.length === 0) return;
  const now = new Date();
  const rows = emails.map((email) => outboxRow(email, now));
  const [answered] = await trx("email_outbox").insert(rows);
  const first = (trx.client as { dialect: string }).dialect === "sqlite3" ? Number(answered) - rows.length + 1 : Number(answered);
  rows.forEach((row, i) => noteQueued(trx, { ...row, id: first + i, attempts: 0 }));
}

function outboxRow(email: OutgoingEmail, now: Date) {
  return {
    kind: email.kind,
    reference: email.reference ?? null,
    to_address: email.to,
    reply_to: email.replyTo ?? null,
    subject: email.subject,
    text_body: email.text,
    html_body: email.html ?? null,
    attachments_json: email.attachments ? JSON.stringify(email.attachments) : null,
    status: "pending",
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
  };
}

/** What a sent e-mail's links become in the outbox: the secret part of each link (by its route) is gone. */
export const SENT_LINK_PLACEHOLDER = "link-removed-after-sending";

/**
 * A sent e-mail's text with every link's secret replaced (manage, family, waiting-list and order-status links: the
 * routes `urlForLog` knows), so the outbox keeps what was said and to whom, never a link that still opens anything.
 */
export function withoutLinkSecrets(text: string): string {
  return text.replace(/\bhttps?:\/\/[^\s"'<>()]+/g, (url) => {
    const origin = /^https?:\/\/[^/?#]+/.exec(url)![0];
    return origin + urlForLog(url.slice(origin.length) || "/", SENT_LINK_PLACEHOLDER);
  });
}

/** Sends what is due (also runs on a timer); wake() after a commit sends at once. */
export type Outbox = JobQueue;

export function createOutbox(opts: { db: Db; transport: MailTransport; from: string; logger: Logger; intervalMs?: number }): Outbox {
  const { transport, from } = opts;
  return createJobQueue({
    db: opts.db,
    logger: opts.logger,
    table: "email_outbox",
    name: "email",
    intervalMs: opts.intervalMs,
    committed: () => takeCommitted(opts.db),
    sameJob: (row) => ({ to_address: row.to_address, subject: row.subject, kind: row.kind }),
    describe: (row) => ({ emailId: row.id, kind: row.kind, to: maskEmail(String(row.to_address)) }),
    async run(row) {
      await transport.send({
        from,
        messageId: `<outbox-${row.id}@${/@([^>\s]+)/.exec(from)?.[1] ?? "localhost"}>`,
        to: String(row.to_address),
        replyTo: (row.reply_to as string | null) ?? undefined,
        subject: String(row.subject),
        text: String(row.text_body),
        html: (row.html_body as string | null) ?? undefined,
        attachments: row.attachments_json ? await sendable(opts.db, JSON.parse(toText(row.attachments_json)) as MailAttachment[]) : undefined,
      });
      opts.logger.info({ emailId: row.id, kind: row.kind, to: maskEmail(String(row.to_address)) }, "email sent");
      // Stored with the row's "sent" status in one update: once sent, the outbox holds no working link.
      return {
        text_body: withoutLinkSecrets(String(row.text_body)),
        html_body: row.html_body ? withoutLinkSecrets(toText(row.html_body)) : null,
        attachments_json: row.attachments_json ? withoutLinkSecrets(toText(row.attachments_json)) : null,
      };
    },
  });
}
