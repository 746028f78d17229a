/**
 * The waiting list's rules: who may join and with how many places (the join form's one schema, with the
 * registration form's messages), and the line's rule for who gets an offer when places become free.
 */
import * as z from "zod/mini";
import type { RegistrationEventFacts } from "./rules.ts";
import { contactRules, findPackage, packageOptions, REGISTRATION_ERRORS } from "./rules.ts";
import { TEAM_MINIMUM, TEAM_PACKAGE } from "./teamRules.ts";
import { toText } from "../toText.ts";
import { familyPrice, MAX_SIBLINGS, NO_SIBLING_DISCOUNT, siblingDiscountText, type SiblingDiscount } from "./siblings.ts";
import { formatPrice } from "../money.ts";

export type EntryKind = "individual" | "team";
export type EntryStatus = "waiting" | "offered" | "registered" | "expired" | "declined" | "left";

/** An individual entry: one athlete, or 2 to MAX_SIBLINGS siblings (siblings.ts), registered together on one form. */
export { MAX_SIBLINGS };
/**
 * An entry that did not fit while an entry behind it got an offer this many times holds the line: no entry
 * behind it is offered until enough places are free together for it, for one offer window at most (chooseOffers).
 */
export const PASSES_BEFORE_BLOCKING = 2;
/** A join counts only once its e-mail is confirmed through the e-mailed link, within this many hours. */
export const CONFIRM_HOURS = 24;

export const WAITLIST_TEXT = {
  joinTitle: (title: string) => `Join the Waiting List: ${title}`,
  explain:
    "Every place is taken or held. Join the waiting list and we e-mail you when places become free: families and teams are offered places in the order they joined, and an offer holds your places while you register and pay.",
  kind: "Please choose who is joining",
  places: (max: number) => `Please choose how many places you need (1 to ${MAX_SIBLINGS} for an athlete and siblings, ${TEAM_MINIMUM} to ${max} for a team)`,
  tooLarge: (capacity: number) => `This event has ${capacity} places in all, not enough for a team of that size.`,
  notSoldOut: "This event still has places: please register directly.",
  checkEmail: "Check your e-mail to confirm",
  confirmFirst: (hours: number) =>
    `To take your place in line, open the link in the e-mail we just sent and confirm within ${hours} hours. Until you confirm, you are not on the list.`,
  confirmExpired: "This confirmation link has expired or is not valid. Please join the waiting list again.",
  joined: (position: number) => `You are number ${position} on the waiting list.`,
  howOffersWork: (hours: number) =>
    `When places become free, we offer them in line order to the first family or team whose places fit, and e-mail you a personal link that holds your places for ${hours} hours while you register and pay. An offer not taken in that time passes to the next in line.`,
  offeredUntil: (until: string) => `They are held for you until ${until}: open the personal link in the offer e-mail to register and pay.`,
  ended: {
    registered: "You registered through the waiting list: see your registration's confirmation e-mail.",
    expired: "Your offer ended without being taken, so your turn passed. You can join the waiting list again.",
    declined: "You declined the offer. You can join the waiting list again.",
    left: "You have left the waiting list. Your place in line is given up.",
  },
  visitorCap: (cap: number) =>
    `You already have places on waiting lists, in offers or held (at most ${cap} at once). Please leave an entry or complete a registration first, or contact us for a larger group.`,
  alreadyOn: "This e-mail address is already on this event's waiting list. Use the link in the e-mail we sent to leave it.",
  left: "You have left the waiting list. Your place in line is given up.",
  linkUnknown: "This link is not valid. It may have been used already or the offer may have ended.",
  offerEnded: "This offer has ended: its places were released to the next family or team on the list.",
  declined: "You declined the offer. Its places go to the next family or team on the list.",
} as const;

/** What a valid join form gives. */
export interface JoinRequest {
  kind: EntryKind;
  places: number;
  packageCode: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  teamName: string | undefined;
}

/** The join form's schema for one event: the registration's contact rules, the event's packages, a size for the kind. */
export function joinSchema(event: RegistrationEventFacts, maxTeam: number) {
  const codes = packageOptions(event).map((p) => p.code as string);
  const fields = z.object({
    kind: z.unknown().check(z.refine((v) => v === "individual" || v === "team", WAITLIST_TEXT.kind)),
    places: z.unknown(),
    registrationType: z.optional(z.unknown()),
    firstName: contactRules.required(100),
    lastName: contactRules.required(100),
    email: contactRules.email(),
    phone: contactRules.phone(),
    teamName: contactRules.optional(160),
  });
  return z.pipe(
    fields.check(
      z.superRefine((raw, ctx) => {
        const v = raw as Record<string, unknown>;
        const n = Number(v.places);
        const team = v.kind === "team";
        const ok = Number.isInteger(n) && (team ? n >= TEAM_MINIMUM && n <= maxTeam : n >= 1 && n <= MAX_SIBLINGS);
        if (!ok) ctx.addIssue({ code: "custom", path: ["places"], message: WAITLIST_TEXT.places(maxTeam) });
        if (!team && !codes.includes(toText(v.registrationType ?? ""))) ctx.addIssue({ code: "custom", path: ["registrationType"], message: REGISTRATION_ERRORS.packageUnknown });
      }, { when: () => true }),
    ),
    z.transform((v): JoinRequest => {
      const kind = v.kind as EntryKind;
      return {
        kind,
        places: Number(v.places),
        packageCode: kind === "team" ? TEAM_PACKAGE.code : String(v.registrationType),
        firstName: v.firstName,
        lastName: v.lastName,
        email: v.email.toLowerCase(),
        phone: v.phone,
        teamName: kind === "team" ? v.teamName : undefined,
      };
    }),
  );
}

/** What the line's rule reads of an entry. */
export interface LineEntry {
  id: number;
  places: number;
  passedOver: number;
  /** Until when (ms) it may hold the line back, set when it is passed over the PASSES_BEFORE_BLOCKING-th time. */
  holdsLineUntil?: number | null;
}

/** Whether an entry that does not fit holds the line back now: passed over enough, and its window still open. */
export const holdsLine = (entry: LineEntry, now: number) =>
  entry.passedOver >= PASSES_BEFORE_BLOCKING && entry.holdsLineUntil != null && entry.holdsLineUntil > now;

/**
 * Who gets an offer when `free` places are free (`now` in ms): in line order, each entry whose size fits what is
 * still free. An entry that does not fit keeps its place and is passed over; one passed over
 * PASSES_BEFORE_BLOCKING times holds the line (nobody behind it is offered) until enough places are free together
 * for it, but only until its window closes (one offer window, set when it is passed over that time: see holdsLine).
 * `passed` are the entries passed over by this round's offers (only those in front of an entry that got one).
 * `heldBack` is how many of the free places the line keeps from sale now: those it offers, and while an entry holds
 * the line, the rest. Nothing else: an entry that does not fit withholds nothing (docs: the waiting list's rule).
 */
export function chooseOffers(line: LineEntry[], free: number, now: number): { offered: LineEntry[]; passed: LineEntry[]; heldBack: number } {
  const offered: LineEntry[] = [];
  let skipped: LineEntry[] = [];
  const passed = new Set<LineEntry>();
  let left = Math.max(0, free);
  let held = false;
  for (const entry of line) {
    if (left <= 0) break;
    if (entry.places <= left) {
      offered.push(entry);
      left -= entry.places;
      for (const s of skipped) passed.add(s);
      skipped = [];
      continue;
    }
    if (holdsLine(entry, now)) {
      held = true;
      break;
    }
    skipped.push(entry);
  }
  const offeredPlaces = offered.reduce((s, e) => s + e.places, 0);
  return { offered, passed: [...passed], heldBack: offeredPlaces + (held ? left : 0) };
}

/** One registration of an offer (a team's, a family's, or an athlete's), as the offer page shows it. */
export interface OfferPlace {
  placeNumber: number;
  reference: string;
  /** The places the registration holds: a family registers this many athletes on its one form. */
  places: number;
  state: "held" | "registered" | "released";
}

/** What a family's offer of `places` athletes at `eachCents` costs: the sibling discount off each additional athlete. */
export function offerFamilyPrice(event: { siblingDiscount?: SiblingDiscount }, eachCents: number, places: number): number {
  return familyPrice(Array.from({ length: places }, () => eachCents), event.siblingDiscount ?? NO_SIBLING_DISCOUNT).totalCents;
}

/**
 * What an offer costs, as its page and e-mail say it: "$299.00 per athlete (Full Event): $598.00 for 2 places", with
 * the sibling discount for a family ("$299.00 per athlete (Full Event), $25.00 off each additional athlete: $573.00
 * for 2 places"), or the team price per athlete for a team. Today's price, as the held registration is priced.
 */
export function offerPriceText(
  event: RegistrationEventFacts & { teamPriceCents: number; siblingDiscount?: SiblingDiscount },
  offer: { kind: "individual" | "team"; packageCode: string; places: number },
): string {
  const team = offer.kind === "team";
  const pkg = team ? undefined : findPackage(event, offer.packageCode);
  const each = team ? event.teamPriceCents : pkg?.priceCents;
  if (each === undefined) return "";
  const what = team ? "team price" : packageOptions(event).find((p) => p.code === pkg!.code)!.label;
  const family = !team && offer.places > 1;
  const discount = family ? siblingDiscountText(event.siblingDiscount ?? NO_SIBLING_DISCOUNT) : null;
  const totalCents = family ? offerFamilyPrice(event, each, offer.places) : each * offer.places;
  const total = offer.places > 1 ? `: ${formatPrice(totalCents)} for ${offer.places} ${team ? "athletes" : "places"}` : "";
  return `${formatPrice(each)} per athlete (${what})${discount ? `, ${discount}` : ""}${total}`;
}
