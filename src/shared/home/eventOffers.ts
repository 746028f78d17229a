/**
 * What the home page and the team event modal show about the events, derived from the event data
 * (never retyped). Pure and browser-safe.
 */
import type { EventSummary } from "../events/types.ts";
import { savingsCents, seasonYear, teamSavingsCents } from "../events/rules.ts";

/** The spec: the team modal offers events 1, 2 and 3; the promo is the National Champ Camp; the featured athlete headlines event 1. */
export const TEAM_MODAL_EVENT_IDS = [1, 2, 3] as const;
export const PROMO_EVENT_ID = 2;
export const FEATURED_EVENT_ID = 1;
export const TEAM_MINIMUM_ATHLETES = 5;

export interface TeamEventChoice {
  id: number;
  title: string;
  dateText: string;
  location: string;
  regularPriceCents: number;
  teamPriceCents: number;
  savingsCents: number;
}

export interface PromoOffer {
  id: number;
  title: string;
  dateText: string;
  location: string;
  originalPriceCents: number;
  priceCents: number;
  savingsCents: number;
  dayOptions: { label: string; priceCents: number }[];
}

export interface FeaturedEvent {
  id: number;
  title: string;
  dateText: string;
  location: string;
}

export interface HomeOffers {
  teamEvents: TeamEventChoice[];
  promo: PromoOffer | null;
  featured: FeaturedEvent | null;
  /** For the sticky banner: the lowest team price and the most a team athlete saves. */
  teamDeal: { teamPriceCents: number; maxSavingsCents: number } | null;
  /** 'Summer {year} Camps': the year of the coming season, from the event dates. */
  seasonYear: number | null;
}

export function teamEventChoice(e: EventSummary): TeamEventChoice {
  return {
    id: e.id,
    title: e.title,
    dateText: e.dateText,
    location: e.location,
    regularPriceCents: e.regularPriceCents,
    teamPriceCents: e.teamPriceCents,
    savingsCents: teamSavingsCents(e),
  };
}

const dayLabel = (days: number) => `${days} ${days === 1 ? "Day" : "Days"}`;

export function promoOffer(e: EventSummary): PromoOffer | null {
  const saved = savingsCents(e);
  if (saved === null || e.originalPriceCents === null) return null;
  return {
    id: e.id,
    title: e.title,
    dateText: e.dateText,
    location: e.location,
    originalPriceCents: e.originalPriceCents,
    priceCents: e.fullPriceCents,
    savingsCents: saved,
    dayOptions: [...e.packages]
      .sort((a, b) => a.dayCount - b.dayCount)
      .map((p) => ({ label: dayLabel(p.dayCount), priceCents: p.priceCents })),
  };
}

export function homeOffers(events: EventSummary[], now: Date): HomeOffers {
  const byId = new Map(events.map((e) => [e.id, e]));
  const teamEvents = TEAM_MODAL_EVENT_IDS.flatMap((id) => {
    const e = byId.get(id);
    return e ? [teamEventChoice(e)] : [];
  });
  const promoEvent = byId.get(PROMO_EVENT_ID);
  const featuredEvent = byId.get(FEATURED_EVENT_ID);
  return {
    teamEvents,
    promo: promoEvent ? promoOffer(promoEvent) : null,
    featured: featuredEvent
      ? { id: featuredEvent.id, title: featuredEvent.title, dateText: featuredEvent.dateText, location: featuredEvent.location }
      : null,
    teamDeal:
      teamEvents.length > 0
        ? {
            teamPriceCents: Math.min(...teamEvents.map((e) => e.teamPriceCents)),
            maxSavingsCents: Math.max(...teamEvents.map((e) => e.savingsCents)),
          }
        : null,
    seasonYear: seasonYear(events, now),
  };
}
