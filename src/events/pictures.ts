import fs from "node:fs";
import path from "node:path";
import { publicDirectory } from "../http/assets.ts";
import type { EventSummary } from "../shared/events/types.ts";

export const EVENT_PLACEHOLDER = "/images/events/event-placeholder.svg";
export const COACH_PLACEHOLDER = "/images/events/coaches/coach-placeholder.svg";
export const LOGO_PLACEHOLDER = "/images/events/colleges/college-placeholder.svg";

/**
 * Pictures are edited by operators in the database; a path that names no file under public/
 * (a typo, a removed file, an outside address the CSP would block) is replaced by a placeholder on the server,
 * so the page never shows a broken image, with or without JavaScript.
 */
export function pictureOr(picture: string, placeholder: string): string {
  if (!picture.startsWith("/") || picture.startsWith("//")) return placeholder;
  try {
    const file = path.resolve(publicDirectory, `.${decodeURI(picture.split(/[?#]/)[0] ?? "")}`);
    if (!file.startsWith(publicDirectory + path.sep)) return placeholder;
    return fs.statSync(file).isFile() ? picture : placeholder;
  } catch {
    return placeholder;
  }
}

/** The same event with every picture checked. */
export function withPictures<E extends EventSummary & { coaches?: { image: string }[] }>(event: E): E {
  return {
    ...event,
    image: pictureOr(event.image, EVENT_PLACEHOLDER),
    collegeLogos: event.collegeLogos.map((l) => ({ ...l, image: pictureOr(l.image, LOGO_PLACEHOLDER) })),
    ...(event.coaches ? { coaches: event.coaches.map((c) => ({ ...c, image: pictureOr(c.image, COACH_PLACEHOLDER) })) } : {}),
  };
}
