import type { Request } from "express";

/** One cookie's raw value from the request's Cookie header, without parsing the others (csrf's visitor id, the session's presence). */
export function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
