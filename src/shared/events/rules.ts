import type { EventDetail, EventPackage, EventSummary } from "./types.ts";
import { centsToDecimal, centsToDollars } from "../money.ts";
import { HEADLINE_PACKAGE } from "../registrations/packages.ts";
import { zoneName } from "../timeZones.ts";

/** Pure event rules and the spec's texts. Browser-safe: no database, no process. */

export const EVENT_NOT_FOUND = "Event not found";
export const EVENT_NOT_FOUND_TITLE = "Event Not Found";
export const EVENT_NOT_FOUND_TEXT = "The event you're looking for doesn't exist or has been removed.";
export const EVENT_LOAD_FAILED = "Could not load event data. Please try again later.";

/** Ids are positive whole numbers written plainly; anything else ('abc', '1.5', '01', '-2') names no event. */
export function parseEventId(raw: unknown): number | null {
  if (typeof raw !== "string" || !/^[1-9]\d{0,8}$/.test(raw)) return null;
  return Number(raw);
}

/** The event's headline price: the headline (full) package, else its dearest package, else 0. */
export function headlinePriceCents(packages: EventPackage[]): number {
  const full = packages.find((p) => p.code === HEADLINE_PACKAGE);
  if (full) return full.priceCents;
  return packages.reduce((max, p) => Math.max(max, p.priceCents), 0);
}

/**
 * A saving worth a 'Save' line: at least $2.00 and at least 5% of the regular price. Below that ('Save $1.00' on a
 * $200 camp) it reads as noise, so no line is shown and the price stands alone.
 */
export const REAL_SAVING = { minCents: 200, minShare: 0.05 } as const;

/** regular minus price when that is a real saving (REAL_SAVING), else 0. */
export function realSavingCents(regularCents: number, priceCents: number): number {
  const saving = regularCents - priceCents;
  return saving >= REAL_SAVING.minCents && saving >= regularCents * REAL_SAVING.minShare ? saving : 0;
}

/** What the promo saves against the struck-through price; null when there is no promotion or no real saving. */
export function savingsCents(event: Pick<EventSummary, "originalPriceCents" | "fullPriceCents">): number | null {
  if (event.originalPriceCents === null) return null;
  return realSavingCents(event.originalPriceCents, event.fullPriceCents) || null;
}

/** Team savings per athlete: regular price minus team price when that is a real saving, else 0. */
export function teamSavingsCents(event: Pick<EventSummary, "regularPriceCents" | "teamPriceCents">): number {
  return realSavingCents(event.regularPriceCents, event.teamPriceCents);
}


export type RegistrationStatus = "open" | "closed" | "soldOut";

/** The label a closed or full event shows in place of its registration link. */
export const REGISTRATION_STATUS_LABEL: Record<Exclude<RegistrationStatus, "open">, string> = {
  soldOut: "Sold Out",
  closed: "Registration Closed",
};

/**
 * When registration closes: the operator's `registration_closes_at`, which defaults to the start, and never
 * later than the start, so nothing sells an event that has begun whatever the column says.
 */
export function registrationClosingTime(closesAt: Date | null, start: Date): Date {
  if (closesAt && closesAt.getTime() < start.getTime()) return closesAt;
  return start;
}

/** The season the site advertises ('Summer {year} Camps'): the year of the first event not yet started, else of the last one. */
export function seasonYear(events: Pick<EventSummary, "startDate">[], now: Date): number | null {
  if (events.length === 0) return null;
  const starts = events.map((e) => e.startDate.getTime()).sort((a, b) => a - b);
  const next = starts.find((t) => t > now.getTime()) ?? starts[starts.length - 1]!;
  return new Date(next).getUTCFullYear();
}

/** The event's daily hours with its zone: '9:00 AM - 4:00 PM CDT'. */
export function eventHoursText(event: Pick<EventSummary, "time" | "startDate" | "timeZone">): string {
  return event.time ? `${event.time} ${zoneName(new Date(event.startDate.getTime() + 12 * 3_600_000), event.timeZone)}` : "";
}

/** Whether an athlete can register now: closed after the closing time, sold out when no place is left. */
export function registrationStatus(event: Pick<EventSummary, "registrationClosesAt">, placesLeft: number, now: Date): RegistrationStatus {
  if (event.registrationClosesAt.getTime() <= now.getTime()) return "closed";
  if (placesLeft <= 0) return "soldOut";
  return "open";
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** schema.org Event with one Offer per package, for the detail page's JSON-LD. */
export function eventJsonLd(
  event: EventDetail,
  opts: { origin: string; brand: string; image: string; placesLeft: number; status: RegistrationStatus },
): object {
  const url = (path: string) => new URL(path, opts.origin).href;
  const availability =
    opts.status === "soldOut" ? "https://schema.org/SoldOut" : opts.status === "closed" ? "https://schema.org/Discontinued" : "https://schema.org/InStock";
  return {
    "@context": "https://schema.org",
    "@type": "Event",
    name: event.title,
    description: event.shortDescription,
    startDate: isoDay(event.startDate),
    endDate: isoDay(event.endDate),
    eventStatus: "https://schema.org/EventScheduled",
    eventAttendanceMode: "https://schema.org/OfflineEventAttendanceMode",
    image: [url(opts.image)],
    url: url(`/events/${event.id}`),
    location: { "@type": "Place", name: event.location, address: event.location },
    organizer: { "@type": "Organization", name: opts.brand, url: url("/") },
    maximumAttendeeCapacity: event.capacity,
    remainingAttendeeCapacity: opts.placesLeft,
    offers: event.packages.map((p) => ({
      "@type": "Offer",
      name: p.label,
      price: centsToDecimal(p.priceCents),
      priceCurrency: "USD",
      availability,
      url: url(`/register/${event.id}`),
      validThrough: event.registrationClosesAt.toISOString(),
    })),
  };
}

/** The body of GET /api/events/{id}: the spec's fields, plus packages, days and places. Dollar amounts are numbers; *Cents are exact. */
export function eventApiBody(event: EventDetail, placesLeft: number, now: Date) {
  return {
    id: event.id,
    title: event.title,
    shortDescription: event.shortDescription,
    description: event.description,
    image: event.image,
    category: event.category,
    basePrice: centsToDollars(event.fullPriceCents),
    basePriceCents: event.fullPriceCents,
    originalPrice: event.originalPriceCents === null ? null : centsToDollars(event.originalPriceCents),
    regularPrice: centsToDollars(event.regularPriceCents),
    teamPrice: centsToDollars(event.teamPriceCents),
    features: event.features,
    location: event.location,
    date: event.dateText,
    startDate: isoDay(event.startDate),
    endDate: isoDay(event.endDate),
    time: event.time,
    ageGroup: event.ageGroup,
    capacity: event.capacity,
    placesLeft,
    registrationStatus: registrationStatus(event, placesLeft, now),
    registrationClosesAt: event.registrationClosesAt.toISOString(),
    packages: event.packages.map((p) => ({ ...p, price: centsToDollars(p.priceCents) })),
    days: event.days,
    coaches: event.coaches,
    collegeLogos: event.collegeLogos,
    coachRegistration: event.coachRegistration === true,
  };
}
