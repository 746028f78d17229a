import fs from "node:fs";
import { SENT_LINK_PLACEHOLDER } from "../../src/email/outbox.ts";

/**
 * An outbox e-mail's text as its recipient got it, links working: the row's own while it is unsent; once sent (the
 * outbox then keeps it without its links' secrets) the message written to the mail directory, found by the
 * Message-ID the outbox gives it (quoted-printable soft breaks joined).
 */
export function sentText(mailDir: string, row: { text_body: string }): string {
  const text = String(row.text_body);
  if (!text.includes(SENT_LINK_PLACEHOLDER)) return text;
  const id = `Message-ID: <outbox-${Number((row as { id?: unknown }).id)}@`;
  const files = fs.existsSync(mailDir) ? fs.readdirSync(mailDir) : [];
  for (const f of files) {
    const mail = fs.readFileSync(`${mailDir}/${f}`, "utf8");
    if (mail.includes(id)) return mail.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  }
  throw new Error(`e-mail ${id} was sent but no message in ${mailDir} has its Message-ID`);
}
