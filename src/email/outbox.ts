import type { Knex } from "knex";
import type { Db } from "../db/knex.ts";
import type { Logger } from "../logger.ts";
import { maskEmail } from "../logger.ts";
import type { MailMessage, MailTransport } from "./transport.ts";

/** What a feature queues: the message without its sender, plus what it is about. */
export interface OutgoingEmail extends Omit<MailMessage, "from"> {
  kind: string;
  reference?: string;
}

export const MAX_ATTEMPTS = 8;

/** 30 s, 1 min, 2 min, ... capped at one hour. */
export function backoffMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

/** A claim older than this belongs to a sender that died mid-send; the row is tried again. */
const STALE_CLAIM_MS = 5 * 60_000;

/**
 * Writes the e-mail in the caller's transaction, so it exists exactly when the fact it announces does.
 * Call outbox.wake() after the transaction commits to send it at once.
 */
export async function enqueueEmail(trx: Knex | Knex.Transaction, email: OutgoingEmail): Promise<number> {
  const now = new Date();
  const [id] = await trx("email_outbox").insert({
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
  });
  return Number(id);
}

interface OutboxRow {
  id: number;
  kind: string;
  to_address: string;
  reply_to: string | null;
  subject: string;
  text_body: string;
  html_body: string | null;
  attachments_json: string | null;
  attempts: number;
}

export interface Outbox {
  /** Sends what is due now (also runs on a timer). Resolves when this pass is done. */
  drain(): Promise<number>;
  /** Ask for a pass soon, without waiting for it. */
  wake(): void;
  start(): void;
  stop(): Promise<void>;
}

export function createOutbox(opts: { db: Db; transport: MailTransport; from: string; logger: Logger; intervalMs?: number }): Outbox {
  const { db, transport, from, logger } = opts;
  const intervalMs = opts.intervalMs ?? 15_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let again = false;

  async function claim(row: OutboxRow): Promise<boolean> {
    const updated = await db("email_outbox")
      .where({ id: row.id, attempts: row.attempts })
      .whereIn("status", ["pending", "sending"])
      .update({ status: "sending", claimed_at: new Date() });
    return updated === 1;
  }

  async function sendOne(row: OutboxRow): Promise<boolean> {
    if (!(await claim(row))) return false;
    try {
      await transport.send({
        from,
        to: row.to_address,
        replyTo: row.reply_to ?? undefined,
        subject: row.subject,
        text: row.text_body,
        html: row.html_body ?? undefined,
        attachments: row.attachments_json ? JSON.parse(row.attachments_json) : undefined,
      });
      await db("email_outbox").where({ id: row.id }).update({ status: "sent", sent_at: new Date(), attempts: row.attempts + 1, last_error: null });
      logger.info({ emailId: row.id, kind: row.kind, to: maskEmail(row.to_address) }, "email sent");
      return true;
    } catch (err) {
      const attempts = row.attempts + 1;
      const failed = attempts >= MAX_ATTEMPTS;
      await db("email_outbox")
        .where({ id: row.id })
        .update({
          status: failed ? "failed" : "pending",
          attempts,
          last_error: String((err as Error).message ?? err).slice(0, 2000),
          next_attempt_at: new Date(Date.now() + backoffMs(attempts)),
          claimed_at: null,
        });
      logger.warn({ emailId: row.id, attempts, failed, err: (err as Error).message }, "email send failed");
      return false;
    }
  }

  async function pass(): Promise<number> {
    const now = new Date();
    const due = (await db("email_outbox")
      .where((q) => q.where("status", "pending").andWhere("next_attempt_at", "<=", now))
      .orWhere((q) => q.where("status", "sending").andWhere("claimed_at", "<", new Date(now.getTime() - STALE_CLAIM_MS)))
      .orderBy("id")
      .limit(20)) as OutboxRow[];
    let sent = 0;
    for (const row of due) if (await sendOne(row)) sent += 1;
    return sent;
  }

  async function drain(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let total = 0;
      try {
        do {
          again = false;
          total += await pass();
        } while (again);
      } catch (err) {
        logger.error({ err: (err as Error).message }, "email outbox pass failed");
      } finally {
        running = undefined;
      }
      return total;
    })();
    return running;
  }

  return {
    drain,
    wake: () => void drain(),
    start() {
      timer ??= setInterval(() => void drain(), intervalMs);
      timer.unref();
      void drain();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
