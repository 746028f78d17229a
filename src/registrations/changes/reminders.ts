import { isUniqueViolation } from "../../db/rows.ts";
import { enqueueEmail } from "../../email/outbox.ts";
import { findEvent, listEvents } from "../../events/repository.ts";
import * as repo from "../core/repository.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { familyLinkEmail } from "./email.ts";
import { FAMILY_LINK_AT_PAYMENT, familyDue, missingFor } from "./family.ts";
import { issueManageLink, manageUrl } from "./links.ts";
import { permissions } from "../core/permissions.ts";

/** Families still missing something hear of it this long before the event's freeze date, once. */
export const REMINDER_DAYS_BEFORE_FREEZE = 7;
export const WAIVER_REMINDER = "waiver_before_freeze";

/**
 * The reminders before the freeze date: each active athlete of a paid team that still lacks something (the waiver
 * and medical release, for a minor) gets one e-mail with a fresh family link, in the last 7 days before the event's
 * freeze date. A family whose link came with the team's payment inside those 7 days has that e-mail (it names the
 * deadline) and no reminder. Once per athlete and reminder, even with several instances running it at once: each is
 * claimed by inserting its row under a unique index in the transaction that queues the e-mail; a second claim fails
 * and sends nothing. Returns how many were sent.
 */
export async function sendFreezeReminders(deps: RegistrationDeps): Promise<number> {
  const now = deps.clock();
  let sent = 0;
  for (const listed of await listEvents(deps.db)) {
    const allowed = permissions("paid", listed, await repo.eventChangesFreezeAt(deps.db, listed.id), now);
    const opensAt = allowed.freezeAt.getTime() - REMINDER_DAYS_BEFORE_FREEZE * 86_400_000;
    const event = allowed.phase === "open" && now.getTime() >= opensAt ? await findEvent(deps.db, listed.id) : null;
    if (!event) continue;
    for (const reference of await repo.paidTeamReferences(deps.db, event.id)) {
      const r = (await repo.findByReference(deps.db, reference))!;
      const justEmailed = new Set(await repo.claimedReminderPositions(deps.db, r.id, FAMILY_LINK_AT_PAYMENT, new Date(opensAt)));
      for (const athlete of r.athletes.filter((a) => a.withdrawnAt === null && missingFor(a).length > 0 && !justEmailed.has(a.position))) {
        try {
          await deps.db.transaction(async (trx) => {
            await repo.claimReminder(trx, r.id, athlete.position, WAIVER_REMINDER, now);
            const token = await issueManageLink(trx, r.id, "family", now, athlete.position);
            await enqueueEmail(trx, familyLinkEmail(deps.site, event, r, athlete, manageUrl(deps.publicUrl, token), await familyDue(trx, event, athlete, now), true));
          });
          sent += 1;
        } catch (err) {
          if (!isUniqueViolation(err)) throw err;
        }
      }
    }
  }
  if (sent > 0) {
    deps.outbox.wake();
    deps.logger.info({ sent }, "freeze-date reminders sent to families");
  }
  return sent;
}
