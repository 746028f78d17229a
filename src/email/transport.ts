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

/**
 * SMTP when SMTP_URL is set, over one pooled connection kept open between messages (the outbox sends one at a time;
 * nodemailer closes it after 4 idle minutes or 100 messages and opens another when needed); otherwise each message
 * is written as an .eml file (embedded default).
 */
export function createMailTransport(opts: { smtpUrl: string | undefined; dir: string }): MailTransport {
  if (opts.smtpUrl) {
    const transporter = nodemailer.createTransport({ url: opts.smtpUrl, pool: true, maxConnections: 1 });
    return {
      async send(message) {
        await transporter.sendMail(message);
      },
      close: () => transporter.close(),
    };
  }
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  // Made once (a failure is not kept); made again only should the folder be removed while the site runs.
  let folder: Promise<unknown> | undefined;
  const makeFolder = () =>
    (folder = fs.mkdir(opts.dir, { recursive: true }).catch((err: unknown) => {
      folder = undefined;
      throw err;
    }));
  const write = async (file: string, content: Buffer) => {
    await (folder ?? makeFolder());
    try {
      await fs.writeFile(file, content);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      await makeFolder();
      await fs.writeFile(file, content);
    }
  };
  return {
    async send(message) {
      const info = await transporter.sendMail(message);
      const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${String(info.messageId).replace(/[^a-zA-Z0-9]/g, "").slice(0, 24)}.eml`;
      await write(path.join(opts.dir, name), info.message as Buffer);
    },
    close: () => transporter.close(),
  };
}
