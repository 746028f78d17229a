import { createHash } from "node:crypto";
import type { Request, Response } from "express";

/**
 * Who sent an unsafe request, as hashes fit to store: the visitor cookie that its CSRF token was checked against
 * (two tabs and a double click share it, before any session exists), and the client's address. Never the raw values.
 */
export interface VisitorKeys {
  session: string;
  address: string;
}

const digest = (label: string, value: string) => createHash("sha256").update(`${label}:${value}`).digest("hex").slice(0, 40);

export function visitorKeys(req: Request, res: Response): VisitorKeys {
  const id = (res.locals.visitorId as string | undefined) ?? req.session?.rateKey ?? req.sessionID ?? "";
  return { session: digest("visitor", id), address: digest("address", req.ip ?? "") };
}
