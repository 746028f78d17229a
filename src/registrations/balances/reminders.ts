import { isUniqueViolation } from "../../db/rows.ts";
import { claimReminder } from "../changes/repository.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { balanceReminderEmail } from "./email.ts";
import { queueBalanceEmail } from "./notify.ts";
import { balancesDueBetween } from "./repository.ts";
import { REMINDERS, reminderDue } from "./schedule.ts";

/** A registration's own reminders are claimed under this athlete position (the freeze-date ones name an athlete). */
const WHOLE_REGISTRATION = 0;

/**
 * The reminders 7 and 2 days before a balance's due date: the amount, the date and the saved card (and, when the card
 * expires before then, that it must be updated). Once per registration and reminder even with several instances
 * running it at once: each is claimed by inserting its row in `registration_reminders` (unique) in the transaction that
 * queues the e-mail; a second claim fails and sends nothing. Returns how many were sent.
 */
export async function sendBalanceReminders(deps: RegistrationDeps): Promise<number> {
  const now = deps.clock();
  const horizon = new Date(now.getTime() + Math.max(...REMINDERS.map((r) => r.daysBefore)) * 86_400_000);
  let sent = 0;
  for (const b of await balancesDueBetween(deps.db, now, horizon)) {
    const kind = reminderDue(b.dueAt!, now);
    if (!kind) continue;
    try {
      await deps.db.transaction(async (trx) => {
        await claimReminder(trx, b.registrationId, WHOLE_REGISTRATION, kind, now);
        await queueBalanceEmail(deps, trx, b, (event, r, url) => balanceReminderEmail(deps.site, event, r, b, url));
      });
      sent += 1;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  if (sent > 0) {
    deps.outbox.wake();
    deps.logger.info({ sent }, "balance reminders sent");
  }
  return sent;
}
