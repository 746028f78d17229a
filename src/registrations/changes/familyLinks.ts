import type { Knex } from "knex";
import { enqueueEmail, enqueueEmails, type OutgoingEmail } from "../../email/outbox.ts";
import { deadlineText } from "../../shared/texts.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import type { Registration, RegistrationAthlete } from "../core/registration.ts";
import { eventChangesFreezeAt } from "../core/tables/eventTerms.ts";
import * as changesRepo from "./repository.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { familyLinkEmail, type FamilyDue } from "./email.ts";
import { issueManageLink, manageUrl, newManageLink } from "./links.ts";
import { permissions } from "../core/permissions.ts";
import { PERMIT, withRegistration } from "../core/withRegistration.ts";
import { ADULT_AGE, missingFor } from "./familyRules.ts";

/** The links a team athlete's family gets (at payment, or sent again by the coach), and what their e-mail asks of them. */

/** What a family's e-mail asks of it and until when: the event's freeze date (read in the caller's transaction). */
export async function familyDue(conn: Knex.Transaction, event: EventDetail, athlete: RegistrationAthlete, now: Date): Promise<FamilyDue> {
  return familyDueBy(event, await eventChangesFreezeAt(conn, event.id), athlete, now);
}

/** familyDue with the event's own deadline for changes already read (one read for a whole team). */
function familyDueBy(event: EventDetail, eventFreezeAt: Date | null, athlete: RegistrationAthlete, now: Date): FamilyDue {
  const { freezeAt } = permissions("paid", event, eventFreezeAt, now);
  return { until: deadlineText(freezeAt, event.timeZone), missing: missingFor(athlete), minor: athlete.age === null || athlete.age < ADULT_AGE };
}

/** The claim (a `registration_reminders` row) that a team athlete's family got its link at payment. */
export const FAMILY_LINK_AT_PAYMENT = "family_link_at_payment";

/** Manage links and e-mails made in a transaction, written by one statement each (writeOutgoing). */
export interface Outgoing {
  links: changesRepo.NewManageLink[];
  emails: OutgoingEmail[];
}

export async function writeOutgoing(trx: Knex.Transaction, out: Outgoing): Promise<void> {
  await changesRepo.insertManageLinks(trx, out.links);
  await enqueueEmails(trx, out.emails);
}

/**
 * At payment, in the transaction that marks a team paid (the caller holds the registration's lock): each athlete's
 * family gets its own link e-mail, to the athlete's address on the roster. Once per athlete, whatever calls it again
 * (a retried settlement, another instance, an operator's acceptance): the e-mails are claimed by rows under the
 * reminders' unique index, read and written under that lock (one statement each, whatever the team's size). The
 * links and e-mails are returned for the caller to write with its own (writeOutgoing).
 */
export async function familyLinksAtPayment(trx: Knex.Transaction, deps: Pick<RegistrationDeps, "site" | "publicUrl">, event: EventDetail, r: Registration, now: Date): Promise<Outgoing> {
  const out: Outgoing = { links: [], emails: [] };
  if (r.kind !== "team") return out;
  const { claimed, eventFreezeAt } = await changesRepo.claimsAndEventFreeze(trx, r.id, FAMILY_LINK_AT_PAYMENT, event.id);
  const athletes = r.athletes.filter((a) => a.withdrawnAt === null && !claimed.includes(a.position));
  if (athletes.length === 0) return out;
  await changesRepo.claimReminders(trx, r.id, athletes.map((a) => a.position), FAMILY_LINK_AT_PAYMENT, now);
  for (const athlete of athletes) {
    const { token, row } = newManageLink(r.id, "family", now, athlete.position);
    out.links.push(row);
    out.emails.push(familyLinkEmail(deps.site, event, r, athlete, manageUrl(deps.publicUrl, token), familyDueBy(event, eventFreezeAt, athlete, now)));
  }
  return out;
}

/** familyLinksAtPayment, written at once. Returns how many e-mails were queued. */
export async function queueFamilyLinks(trx: Knex.Transaction, deps: Pick<RegistrationDeps, "site" | "publicUrl">, event: EventDetail, r: Registration, now: Date): Promise<number> {
  const out = await familyLinksAtPayment(trx, deps, event, r, now);
  await writeOutgoing(trx, out);
  return out.emails.length;
}

/** The coach sends (again) one athlete's family a link that opens only that athlete (to the athlete's e-mail on the roster). */
export async function sendFamilyLink(deps: RegistrationDeps, event: EventDetail, reference: string, position: number): Promise<RegistrationAthlete> {
  const athlete = await withRegistration(deps, reference, { event, kind: "team", athletePosition: position, permit: PERMIT.active }, async ({ trx, now, r, athlete }) => {
    const token = await issueManageLink(trx, r.id, "family", now, position);
    await enqueueEmail(trx, familyLinkEmail(deps.site, event, r, athlete, manageUrl(deps.publicUrl, token), await familyDue(trx, event, athlete, now)));
    return athlete;
  });
  deps.outbox.wake();
  return athlete;
}
