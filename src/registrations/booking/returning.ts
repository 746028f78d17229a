import { newSecretToken, secretTokenHash, SECRET_TOKEN_PATTERN } from "../../http/secretLinks.ts";
import { hashForLog } from "../../logger.ts";
import { enqueueEmail, type OutgoingEmail } from "../../email/outbox.ts";
import { findEvent } from "../../events/repository.ts";
import { lockingTransaction } from "../../db/transaction.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import type { Site } from "../../shared/site.ts";
import { blankAthlete, type AthleteRow, type CoachValues } from "../../shared/registrations/teamRules.ts";
import { ageMovedUp, gradeMovedUp, RETURNING_LINK, RETURNING_PATH, seasonsBetween, type ReturningForm, type ReturningFrom, type ReturningPrefill } from "../../shared/registrations/returning.ts";
import { DEFAULT_PACKAGE, siblingFormValues, type SiblingEntry } from "../../shared/registrations/rules.ts";
import { MAX_SIBLINGS, SIBLINGS_FIELD } from "../../shared/registrations/siblings.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import type { Registration, RegistrationAthlete } from "../core/registration.ts";
import { findByReference } from "../core/tables/registrations.ts";
import { MANAGEABLE_STATUSES } from "../changes/links.ts";
import * as repo from "./returningRepository.ts";
import { athleteStepValues } from "./athleteValues.ts";

/**
 * "Registered before?" (issue 43): an address that registered before (as athlete, parent or coach) gets one e-mail
 * with a link that opens once, for 30 minutes, at most 3 a day; opened, the link fills in the form of the event where
 * it was asked from the address's latest registration. Only the token's hash is stored.
 */

/** Registrations of one family at one event made within this time of the latest count as one "latest" (siblings registered one after another). */
const SAME_SITTING_MS = 24 * 60 * 60_000;

/** The address's latest registration(s): the newest, and every athlete of it and of the family's others made at the same event and sitting. */
export interface ReturningSource {
  latest: Registration;
  /** The event the latest registration was for (its title and season); null when it is gone. */
  event: EventDetail | null;
  /** Every athlete, the latest registration's first: the address's own athlete only where it is an athlete of someone else's registration. */
  athletes: RegistrationAthlete[];
}

const lower = (s: string | null | undefined) => (s ?? "").toLowerCase();

/** The address registered this registration (as its contact or guardian), rather than being one of its athletes. */
const madeIt = (r: Registration, address: string) => lower(r.contact.email) === address || lower(r.guardian?.email) === address;

/**
 * ALL athletes of the address's latest registration(s): for a parent of siblings registered on separate registrations
 * at the same event and time, all of them; for a coach, the whole team (withdrawn athletes left out); for an athlete
 * of someone else's registration, that athlete. Undefined when the address never registered.
 */
export async function returningAthletesOf(deps: Pick<RegistrationDeps, "db">, email: string): Promise<ReturningSource | undefined> {
  const address = email.trim().toLowerCase();
  const made = await repo.registrationsOfAddress(deps.db, address, MANAGEABLE_STATUSES, 20);
  const first = made[0];
  if (!first) return undefined;
  const sitting = made.filter((m) => m.eventId === first.eventId && first.createdAt.getTime() - m.createdAt.getTime() <= SAME_SITTING_MS);
  const registrations = (await Promise.all(sitting.map((m) => findByReference(deps.db, m.reference)))).filter((r): r is Registration => r !== undefined);
  const latest = registrations[0];
  if (!latest) return undefined;
  const athletes: RegistrationAthlete[] = [];
  const seen = new Set<string>();
  for (const r of registrations) {
    const own = madeIt(r, address);
    for (const a of r.athletes) {
      const key = `${lower(a.firstName)} ${lower(a.lastName)}`;
      if (a.withdrawnAt || seen.has(key) || (!own && lower(a.email) !== address)) continue;
      seen.add(key);
      athletes.push(a);
    }
  }
  return { latest, event: await findEvent(deps.db, latest.eventId), athletes };
}

/** The form a link opens: the one it was asked on; from the event's page, the team form for a coach's latest team. */
export function formFor(from: ReturningFrom | undefined, source: ReturningSource, address: string): ReturningForm {
  if (from === "register") return "individual";
  if (from === "team") return "team";
  return source.latest.kind === "team" && lower(source.latest.contact.email) === address.toLowerCase() ? "team" : "individual";
}

/**
 * Sends the link when the address registered before and has had fewer than 3 today; decided under the address's own
 * row's lock, so posts at once cannot go past the cap. Answers whether one was sent; the caller answers the same
 * either way, before this runs.
 */
export async function sendReturningLink(deps: RegistrationDeps, event: EventDetail, email: string, from: ReturningFrom | undefined): Promise<boolean> {
  const address = email.trim().toLowerCase();
  const source = await returningAthletesOf(deps, address);
  if (!source) return false;
  const form = formFor(from, source, address);
  const sender = secretTokenHash(address);
  await repo.ensureSender(deps.db, sender);
  const queued = await lockingTransaction(deps.db, async (trx) => {
    await repo.lockSender(trx, sender);
    const now = deps.clock();
    if ((await repo.linksSentSince(trx, address, new Date(now.getTime() - 86_400_000))) >= RETURNING_LINK.perAddressPerDay) return false;
    const token = newSecretToken();
    await repo.insertLink(trx, { tokenHash: secretTokenHash(token), email: address, eventId: event.id, form, now, expiresAt: new Date(now.getTime() + RETURNING_LINK.validMs) });
    await enqueueEmail(trx, returningLinkEmail(deps.site, event, greetingName(source, address), `${deps.publicUrl}${RETURNING_PATH}/${token}`, address));
    return true;
  });
  if (queued) deps.outbox.wake();
  return queued;
}

function greetingName(source: ReturningSource, address: string): string {
  const r = source.latest;
  if (lower(r.guardian?.email) === address) return r.guardian!.name.split(/\s+/)[0] || r.guardian!.name;
  if (lower(r.contact.email) === address) return r.contact.firstName;
  return source.athletes[0]?.firstName ?? r.contact.firstName;
}

function returningLinkEmail(site: Site, event: EventDetail, name: string, url: string, to: string): OutgoingEmail {
  const text = [
    `Hi ${name},`,
    "",
    `Here is the link that fills in the registration form for ${event.title} (${event.dateText}) from your last registration, as you asked:`,
    "",
    url,
    "",
    "It works once, for 30 minutes, in the browser you open it in. Check the details it fills in; the agreements and the waiver are signed anew each season, and nothing is paid until you pay on the form.",
    "",
    "If you did not ask for this e-mail, you can ignore it: nothing changes.",
    "",
    `Questions? Reply to this e-mail, write to ${site.email} or call ${site.phone}.`,
    "",
    site.displayName,
  ].join("\n");
  return { kind: "returning_link", reference: `returning:${hashForLog(to)}`, to, replyTo: site.email, subject: `Your link to register again: ${event.title}`, text };
}

/**
 * Opens a link once: what the form of its event is filled in with, or undefined (unknown, malformed, used or
 * expired: one answer). Any string is hashed and looked up the same way.
 */
export async function openReturningLink(deps: Pick<RegistrationDeps, "db" | "clock">, token: string): Promise<ReturningPrefill | undefined> {
  const hash = secretTokenHash(token.slice(0, 100));
  if (!SECRET_TOKEN_PATTERN.test(token)) return undefined;
  const link = await repo.useLink(deps.db, hash, deps.clock());
  if (!link) return undefined;
  const [event, source] = await Promise.all([findEvent(deps.db, link.eventId), returningAthletesOf(deps, link.email)]);
  if (!event || !source) return undefined;
  return prefillOf(event, source, link.form);
}

/** Where a link that no longer opens was asked for (its event and form), so its page can offer to ask again. */
export async function spentLinkTarget(deps: Pick<RegistrationDeps, "db">, token: string): Promise<{ eventId: number; form: ReturningForm } | undefined> {
  return SECRET_TOKEN_PATTERN.test(token) ? repo.linkTarget(deps.db, secretTokenHash(token)) : undefined;
}

/** The form's values from the source: the athletes (a family's as siblings) moved up by the seasons passed; never a card, an agreement or a waiver. */
export function prefillOf(event: Pick<EventDetail, "id" | "startDate" | "packages" | "days">, source: ReturningSource, form: ReturningForm): ReturningPrefill {
  const seasons = source.event ? seasonsBetween(source.event.startDate, event.startDate) : 0;
  const r = source.latest;
  const common = { eventId: event.id, form, fromEventTitle: source.event?.title ?? "a past event" };
  if (form === "team") {
    const coach: CoachValues = r.kind === "team" ? { ...r.contact, teamName: r.teamName ?? "" } : { firstName: "", lastName: "", email: "", phone: "", teamName: "" };
    return { ...common, values: {}, others: [], team: { coach, athletes: source.athletes.map((a) => teamRowOf(r, a, seasons)) } };
  }
  // A family's athletes fill in as siblings (up to MAX_SIBLINGS); a team's are not a family: its others are only named.
  const [first, ...rest] = source.athletes;
  const siblings = r.kind === "individual" ? rest.slice(0, MAX_SIBLINGS - 1) : [];
  const values = first ? individualValuesOf(r, first, seasons) : {};
  for (const [i, a] of siblings.entries()) Object.assign(values, siblingFormValues(i + 2, siblingEntryOf(a, seasons), event));
  if (siblings.length > 0) values[SIBLINGS_FIELD] = String(siblings.length);
  return { ...common, values, others: rest.slice(siblings.length).map((a) => `${a.firstName} ${a.lastName}`) };
}

/** An athlete of last season as a sibling on this season's form: the default package and no days chosen, as for the first athlete. */
function siblingEntryOf(a: RegistrationAthlete, seasons: number): SiblingEntry {
  return {
    registrationType: DEFAULT_PACKAGE,
    dayIds: [],
    firstName: a.firstName,
    lastName: a.lastName,
    grade: gradeMovedUp(a.grade ?? "", seasons),
    gender: (a.gender ?? "") as SiblingEntry["gender"],
    schoolName: a.schoolName ?? "",
    clubName: a.clubName ?? "",
    tShirtSize: (a.shirtSize ?? "") as SiblingEntry["tShirtSize"],
    specialRequirements: a.specialRequirements ?? "",
  };
}

function individualValuesOf(r: Registration, a: RegistrationAthlete, seasons: number): Record<string, string> {
  const values: Record<string, string> = { ...athleteStepValues(a), grade: gradeMovedUp(a.grade ?? "", seasons) };
  if (r.guardian) Object.assign(values, { guardianName: r.guardian.name, guardianEmail: r.guardian.email, guardianPhone: r.guardian.phone });
  // A team athlete's parent is its emergency contact on the roster.
  else if (r.kind === "team") Object.assign(values, { guardianName: a.emergencyContactName, guardianPhone: a.emergencyContactPhone });
  else if (!r.guardianMissing) values.adult = "on";
  return values;
}

function teamRowOf(r: Registration, a: RegistrationAthlete, seasons: number): AthleteRow {
  return {
    ...blankAthlete(),
    firstName: a.firstName,
    lastName: a.lastName,
    age: ageMovedUp(a.age, seasons),
    email: a.email,
    shirtSize: a.shirtSize ?? "",
    parentName: r.kind === "team" ? a.emergencyContactName : r.guardian?.name ?? a.emergencyContactName,
    parentPhoneNumber: r.kind === "team" ? a.emergencyContactPhone : r.guardian?.phone ?? a.emergencyContactPhone,
  };
}
