import type { Knex } from "knex";
import { enqueueEmail } from "../../email/outbox.ts";
import { deadlineText } from "../../shared/texts.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import type { Registration, RegistrationAthlete } from "../core/registration.ts";
import { eventChangesFreezeAt } from "../core/tables/eventTerms.ts";
import * as changesRepo from "./repository.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { familyLinkEmail, type FamilyDue } from "./email.ts";
import { issueManageLink, manageUrl } from "./links.ts";
import { permissions } from "../core/permissions.ts";
import { PERMIT, withRegistration } from "../core/withRegistration.ts";
import { ADULT_AGE, missingFor } from "./familyRules.ts";

/** The links a team athlete's family gets (at payment, or sent again by the coach), and what their e-mail asks of them. */

/** What a family's e-mail asks of it and until when: the event's freeze date (read in the caller's transaction). */
export async function familyDue(conn: Knex.Transaction, event: EventDetail, athlete: RegistrationAthlete, now: Date): Promise<FamilyDue> {
  const { freezeAt } = permissions("paid", event, await eventChangesFreezeAt(conn, event.id), now);
  return { until: deadlineText(freezeAt, event.timeZone), missing: missingFor(athlete), minor: athlete.age === null || athlete.age < ADULT_AGE };
}

/** The claim (a `registration_reminders` row) that a team athlete's family got its link at payment. */
export const FAMILY_LINK_AT_PAYMENT = "family_link_at_payment";

/**
 * At payment, in the transaction that marks a team paid (the caller holds the registration's lock): each athlete's
 * family gets its own link e-mail, to the athlete's address on the roster. Once per athlete, whatever calls it again
 * (a retried settlement, another instance, an operator's acceptance): each e-mail is claimed by a row under the
 * reminders' unique index, read and written under that lock. Returns how many were queued.
 */
export async function queueFamilyLinks(trx: Knex.Transaction, deps: Pick<RegistrationDeps, "site" | "publicUrl">, event: EventDetail, r: Registration, now: Date): Promise<number> {
  if (r.kind !== "team") return 0;
  const claimed = new Set(await changesRepo.claimedReminderPositions(trx, r.id, FAMILY_LINK_AT_PAYMENT));
  let queued = 0;
  for (const athlete of r.athletes.filter((a) => a.withdrawnAt === null && !claimed.has(a.position))) {
    await changesRepo.claimReminder(trx, r.id, athlete.position, FAMILY_LINK_AT_PAYMENT, now);
    const token = await issueManageLink(trx, r.id, "family", now, athlete.position);
    await enqueueEmail(trx, familyLinkEmail(deps.site, event, r, athlete, manageUrl(deps.publicUrl, token), await familyDue(trx, event, athlete, now)));
    queued += 1;
  }
  return queued;
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
