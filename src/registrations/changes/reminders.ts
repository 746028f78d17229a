import { isUniqueViolation } from "../../db/rows.ts";
import { enqueueEmail } from "../../email/outbox.ts";
import { findEvent, listEvents } from "../../events/repository.ts";
import { eventChangesFreezeAt } from "../core/tables/eventTerms.ts";
import { findByReference } from "../core/tables/registrations.ts";
import * as changesRepo from "./repository.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { familyLinkEmail, guardianReminderEmail } from "./email.ts";
import { deadlineText } from "../../shared/texts.ts";
import { FAMILY_LINK_AT_PAYMENT, familyDue } from "./familyLinks.ts";
import { missingFor } from "./familyRules.ts";
import { issueManageLink, manageUrl } from "./links.ts";
import { permissions } from "../core/permissions.ts";

/** Families still missing something hear of it this long before the event's freeze date, once. */
export const REMINDER_DAYS_BEFORE_FREEZE = 7;
export const WAIVER_REMINDER = "waiver_before_freeze";
export const GUARDIAN_REMINDER = "guardian_before_freeze";

/**
 * The reminders before the freeze date: each active athlete of a paid team that still lacks something (the waiver
 * and medical release, for a minor) gets one e-mail with a fresh family link, in the last 7 days before the event's
 * freeze date. A family whose link came with the team's payment inside those 7 days has that e-mail (it names the
 * deadline) and no reminder. Once per athlete and reminder, even with several instances running it at once: each is
 * claimed by inserting its row under a unique index in the transaction that queues the e-mail; a second claim fails
 * and sends nothing. An individual registered without its parent or guardian contact (the spec's call) is reminded
 * the same way, once, at the registration's own address. Returns how many were sent.
 */
export async function sendFreezeReminders(deps: RegistrationDeps): Promise<number> {
  const now = deps.clock();
  let sent = 0;
  for (const listed of await listEvents(deps.db)) {
    const allowed = permissions("paid", listed, await eventChangesFreezeAt(deps.db, listed.id), now);
    const opensAt = allowed.freezeAt.getTime() - REMINDER_DAYS_BEFORE_FREEZE * 86_400_000;
    const event = allowed.phase === "open" && now.getTime() >= opensAt ? await findEvent(deps.db, listed.id) : null;
    if (!event) continue;
    for (const reference of await changesRepo.paidTeamReferences(deps.db, event.id)) {
      const r = (await findByReference(deps.db, reference))!;
      const justEmailed = new Set(await changesRepo.claimedReminderPositions(deps.db, r.id, FAMILY_LINK_AT_PAYMENT, new Date(opensAt)));
      for (const athlete of r.athletes.filter((a) => a.withdrawnAt === null && missingFor(a).length > 0 && !justEmailed.has(a.position))) {
        try {
          await deps.db.transaction(async (trx) => {
            await changesRepo.claimReminder(trx, r.id, athlete.position, WAIVER_REMINDER, now);
            const token = await issueManageLink(trx, r.id, "family", now, athlete.position);
            await enqueueEmail(trx, familyLinkEmail(deps.site, event, r, athlete, manageUrl(deps.publicUrl, token), await familyDue(trx, event, athlete, now), true));
          });
          sent += 1;
        } catch (err) {
          if (!isUniqueViolation(err)) throw err;
        }
      }
    }
    for (const reference of await changesRepo.guardianMissingReferences(deps.db, event.id)) {
      const r = (await findByReference(deps.db, reference))!;
      try {
        await deps.db.transaction(async (trx) => {
          await changesRepo.claimReminder(trx, r.id, 1, GUARDIAN_REMINDER, now);
          const token = await issueManageLink(trx, r.id, "reminder", now);
          await enqueueEmail(trx, guardianReminderEmail(deps.site, event, r, manageUrl(deps.publicUrl, token), deadlineText(allowed.freezeAt, event.timeZone)));
        });
        sent += 1;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
    }
  }
  if (sent > 0) {
    deps.outbox.wake();
    deps.logger.info({ sent }, "freeze-date reminders sent to families");
  }
  return sent;
}
