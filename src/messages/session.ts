import type { Request } from "express";
import "../http/sessionData.ts";

export type SentForm = "contact" | "quote" | "newsletter";

declare module "express-session" {
  interface SessionData {
    /** Forms sent without JavaScript: the next page shows its confirmation panel once. */
    messagesSent?: Partial<Record<SentForm, true>>;
  }
}

export function markSent(req: Request, form: SentForm): void {
  if (!req.session) return;
  req.session.messagesSent = { ...req.session.messagesSent, [form]: true };
}

/** Whether the form was just sent; the flag is consumed. */
export function takeSent(req: Request, form: SentForm): boolean {
  const sent = req.session?.messagesSent?.[form] === true;
  if (sent) {
    const rest = { ...req.session.messagesSent };
    delete rest[form];
    req.session.messagesSent = rest;
  }
  return sent;
}
