/**
 * The waiting list's rules: who may join and with how many places (the join form's one schema, with the
 * registration form's messages), and the line's rule for who gets an offer when places become free.
 */
import * as z from "zod/mini";
import type { RegistrationEventFacts } from "./rules.ts";
import { contactRules, packageOptions, REGISTRATION_ERRORS } from "./rules.ts";
import { TEAM_MINIMUM, TEAM_PACKAGE } from "./teamRules.ts";
import { toText } from "../toText.ts";

export type EntryKind = "individual" | "team";
export type EntryStatus = "waiting" | "offered" | "registered" | "expired" | "declined" | "left";

/** An individual entry: one athlete, or 2 to this many siblings, each registered on their own form. */
export const MAX_SIBLINGS = 4;
/**
 * An entry that did not fit while an entry behind it got an offer this many times blocks the line: no entry
 * behind it is offered until enough places are free together for it (README: Waiting list).
 */
export const PASSES_BEFORE_BLOCKING = 2;

export const WAITLIST_TEXT = {
  joinTitle: (title: string) => `Join the Waiting List: ${title}`,
  explain:
    "Every place is taken or held. Join the waiting list and we e-mail you when places become free: families and teams are offered places in the order they joined, and an offer holds your places while you register and pay.",
  kind: "Please choose who is joining",
  places: (max: number) => `Please choose how many places you need (1 to ${MAX_SIBLINGS} for an athlete and siblings, ${TEAM_MINIMUM} to ${max} for a team)`,
  tooLarge: (capacity: number) => `This event has ${capacity} places in all, not enough for a team of that size.`,
  notSoldOut: "This event still has places: please register directly.",
  joined: (position: number) => `You are number ${position} on the waiting list.`,
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
}

/**
 * Who gets an offer when `free` places are free: in line order, each entry whose size fits what is still free.
 * An entry that does not fit keeps its place and is passed over; one passed over PASSES_BEFORE_BLOCKING times
 * already blocks the line (nobody behind it is offered) until enough places are free together for it.
 * `passed` are the entries passed over by this round's offers (only those in front of an entry that got one).
 */
export function chooseOffers(line: LineEntry[], free: number): { offered: LineEntry[]; passed: LineEntry[] } {
  const offered: LineEntry[] = [];
  let skipped: LineEntry[] = [];
  const passed = new Set<LineEntry>();
  let left = free;
  for (const entry of line) {
    if (left <= 0) break;
    if (entry.places <= left) {
      offered.push(entry);
      left -= entry.places;
      for (const s of skipped) passed.add(s);
      skipped = [];
      continue;
    }
    if (entry.passedOver >= PASSES_BEFORE_BLOCKING) break;
    skipped.push(entry);
  }
  return { offered, passed: [...passed] };
}

/** One place (or the team) of an offer, as the offer page shows it. */
export interface OfferPlace {
  placeNumber: number;
  reference: string;
  state: "held" | "registered" | "released";
}
