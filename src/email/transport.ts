import fs from "node:fs/promises";
import path from "node:path";
import nodemailer from "nodemailer";

/**
 * What the outbox keeps: inline content (an .ics invitation), a file of `stored_files` read when the e-mail is sent
 * (an uploaded logo), or (e-mails queued by earlier versions) a file on this server's disk.
 */
export type MailAttachment = { filename: string; contentType: string } & (
  | { content: string; path?: never; storedFile?: never }
  | { storedFile: string; content?: never; path?: never }
  | { path: string; content?: never; storedFile?: never }
);

/** What the transport sends: stored files already read. */
export type SendableAttachment = { filename: string; contentType: string } & ({ content: string | Buffer; path?: never } | { path: string; content?: never });

export interface MailMessage {
  from: string;
  /** `<outbox-{id}@{sender's domain}>`: the same on every attempt, so a message can be matched to its outbox row. */
  messageId?: string;
  to: string;
  replyTo?: string;
  subject: string;
  text: string;
  html?: string;
  attachments?: SendableAttachment[];
}

export interface MailTransport {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** SMTP when SMTP_URL is set; otherwise each message is written as an .eml file (embedded default). */
export function createMailTransport(opts: { smtpUrl: string | undefined; dir: string }): MailTransport {
  if (opts.smtpUrl) {
    const transporter = nodemailer.createTransport(opts.smtpUrl);
    return {
      async send(message) {
        await transporter.sendMail(message);
      },
      close: () => transporter.close(),
    };
  }
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    async send(message) {
      const info = await transporter.sendMail(message);
      await fs.mkdir(opts.dir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${String(info.messageId).replace(/[^a-zA-Z0-9]/g, "").slice(0, 24)}.eml`;
      await fs.writeFile(path.join(opts.dir, name), info.message as Buffer);
    },
    close: () => transporter.close(),
  };
}
