// Time zones for dates the site shows and computes: an event's first day, its hours, a balance's due day.
import { dateFormat } from "./dateFormats.ts";

/** The brand's own zone (Birmingham, AL), for an event without one. */
export const DEFAULT_TIME_ZONE = "America/Chicago";

/** The zone's offset from UTC at an instant, in minutes (America/Chicago in June: -300). */
function zoneOffsetMinutes(at: Date, timeZone: string): number {
  const parts = Object.fromEntries(
    dateFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const asUtc = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/** Midnight at the start of a calendar day (YYYY-MM-DD) in a time zone, as an instant. */
export function startOfDayIn(day: string, timeZone: string): Date {
  const utcMidnight = new Date(`${day}T00:00:00Z`);
  const guess = new Date(utcMidnight.getTime() - zoneOffsetMinutes(utcMidnight, timeZone) * 60_000);
  // Once more at the guess, in case the offset changes between the two instants (a daylight-saving switch).
  return new Date(utcMidnight.getTime() - zoneOffsetMinutes(guess, timeZone) * 60_000);
}

/** The zone's short name on the event's first day ('CDT', 'PDT'), for its daily hours. */
export function zoneName(at: Date, timeZone: string): string {
  return dateFormat("en-US", { timeZone, timeZoneName: "short" }).formatToParts(at).find((p) => p.type === "timeZoneName")?.value ?? timeZone;
}
