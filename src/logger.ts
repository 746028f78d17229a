import { createHash } from "node:crypto";
import { pino } from "pino";

export type Logger = pino.Logger;

/** JSON lines on stdout, or on `destination` (production's asyncStdout; tests read what would be logged). */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    redact: {
      // err.sql: mysql2 puts the query with its values (e-mail addresses, names) on its errors.
      paths: ["req.headers.cookie", "req.headers.authorization", 'res.headers["set-cookie"]', "*.email", "*.cardNumber", "err.sql"],
      censor: "[redacted]",
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type LogDestination = ReturnType<typeof pino.destination>;

/**
 * Stdout written asynchronously (sonic-boom): a log line costs the request a copy into a buffer, never a write to
 * a slow pipe or terminal. What is buffered when the process stops is written by endLogs on shutdown (and, best
 * effort, by pino's own exit handler on any other exit).
 */
export function asyncStdout(): LogDestination {
  return pino.destination({ dest: 1, sync: false });
}

/**
 * Writes out what the destination still holds, then resolves: the last step of a normal stop (no line may be
 * logged after it). Gives up after `timeoutMs` when the output went away (a closed pipe ends nothing).
 */
export function endLogs(destination: LogDestination, timeoutMs = 2000): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    destination.once("close", done);
    try {
      destination.end();
    } catch {
      done(); // already ended
    }
  });
}

/** Logs never carry a session id or a full e-mail address. */
export function hashForLog(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 12);
}

export function maskEmail(email: string): string {
  const [user = "", domain = ""] = email.split("@");
  return `${user.slice(0, 1)}***@${domain}`;
}

/** Query parameters whose values are secrets (the offline Stripe.js sends a client secret, forms a CSRF token). */
const SECRET_PARAM = /secret|token|csrf|key|password|signature|card|cvc|email/i;

/**
 * The routes whose path carries a link's secret, matched by route, not by the token's shape: any length, any
 * alphabet. `/my-registration/{token}/...` (manage and family links), `/orders/{token}` (an order's status link),
 * `/returning/{token}` ("Registered before?"),
 * and everything under `/waiting-list/` that is not an event id or one of the routes' own words (offer, leave,
 * confirmation links and whatever link that list adds: an unknown segment there is taken for a secret).
 */
const SECRET_AFTER = ["my-registration", "orders", "returning", "team-invite"];
const WAITING_LIST_WORDS = new Set(["waiting-list", "offer", "leave", "take", "decline", "confirm", "join", "cancel"]);

/** A path with every secret segment replaced by `[redacted]` (or the placeholder given). */
export function pathForLog(path: string, placeholder = "[redacted]"): string {
  const parts = path.split("/");
  const start = parts[1] === "api" ? 2 : 1;
  const root = parts[start];
  for (let i = start + 1; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === "") continue;
    const secret = root === "waiting-list" ? !/^\d{1,12}$/.test(part) && !WAITING_LIST_WORDS.has(part) : SECRET_AFTER.includes(root ?? "") && i === start + 1;
    if (secret) parts[i] = placeholder;
  }
  return parts.join("/");
}

/** A request URL for the log, with secret-looking query values and link tokens in the path replaced. */
export function urlForLog(url: string, placeholder = "[redacted]"): string {
  const q = url.indexOf("?");
  const path = pathForLog(q < 0 ? url : url.slice(0, q), placeholder);
  if (q < 0) return path;
  const params = new URLSearchParams(url.slice(q + 1));
  const kept = [...params].map(([k, v]) => `${encodeURIComponent(k)}=${SECRET_PARAM.test(k) ? placeholder : encodeURIComponent(v)}`);
  return `${path}?${kept.join("&")}`;
}
