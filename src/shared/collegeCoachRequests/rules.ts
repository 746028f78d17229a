import type { EventSummary } from "../events/types.ts";
import { registrationStatus } from "../events/rules.ts";

export type CoachRegistrationState = "open" | "closed" | "notOffered";

/**
 * Whether a college coach can send a request for the event now: only events that offer it, and only while the
 * event's registration is not closed. A sold-out event still takes coaches (they do not use wrestlers' places),
 * so the places left do not matter here.
 */
export function coachRegistrationState(
  event: Pick<EventSummary, "coachRegistration" | "registrationClosesAt">,
  now: Date,
): CoachRegistrationState {
  if (!event.coachRegistration) return "notOffered";
  return registrationStatus(event, Number.POSITIVE_INFINITY, now) === "closed" ? "closed" : "open";
}

/** What the dialog and the page need to know about the event the request is for. */
export interface CoachEvent {
  id: number;
  title: string;
  dateText: string;
  location: string;
  days: { id: number; date: string; label: string }[];
}

export function coachEvent(event: Pick<EventSummary, "id" | "title" | "dateText" | "location" | "days">): CoachEvent {
  return {
    id: event.id,
    title: event.title,
    dateText: event.dateText,
    location: event.location,
    days: event.days.map((d) => ({ id: d.id, date: d.date, label: d.label })),
  };
}

// ---- the school logo: JPG, PNG or GIF by the file's first bytes (never its name or declared type), 5 MB at most;
// the dialog refuses a wrong file before sending it, with the server's words ----

export const LOGO_MAX_BYTES = 5 * 1024 * 1024;
/** The form field that carries the file. */
export const LOGO_FIELD = "schoolLogo";

export const LOGO_TYPES = {
  jpg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
} as const;
export type LogoType = keyof typeof LOGO_TYPES;

export const LOGO_MESSAGES = {
  type: "School logo must be a JPG, PNG or GIF image",
  size: "School logo must be 5 MB or smaller",
  empty: "The school logo file is empty",
  single: "Please attach one school logo file (JPG, PNG or GIF)",
} as const;

/** The file's first bytes this check needs. */
export const LOGO_SNIFF_BYTES = 8;

const startsWith = (bytes: Uint8Array, signature: readonly number[]) => signature.every((b, i) => bytes[i] === b);

/** The image type the bytes are, by magic number: PNG, JPEG (FF D8 FF) or GIF87a/GIF89a; null for anything else. */
export function detectLogoType(bytes: Uint8Array): LogoType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "jpg";
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return "gif";
  return null;
}

type Checked = { ok: true; type: LogoType } | { ok: false; message: string };

/** The content check the server makes (multer has already refused a file over the size limit): not empty, and an image we take. */
export function checkLogoContent(size: number, head: Uint8Array): Checked {
  if (size === 0) return { ok: false, message: LOGO_MESSAGES.empty };
  const type = detectLogoType(head);
  return type ? { ok: true, type } : { ok: false, message: LOGO_MESSAGES.type };
}

/** The whole check, size included, as the dialog makes it before sending. */
export function checkLogo(size: number, head: Uint8Array): Checked {
  if (size > LOGO_MAX_BYTES) return { ok: false, message: LOGO_MESSAGES.size };
  return checkLogoContent(size, head);
}
