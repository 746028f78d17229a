import { toDepositPolicy } from "../../events/repository.ts";
import { toDate } from "../../db/rows.ts";
import { DEFAULT_TIME_ZONE } from "../../shared/timeZones.ts";
import { depositPlan } from "../../shared/registrations/deposits.ts";
import { toText } from "../../shared/toText.ts";
import type { Registration } from "../core/registration.ts";

/**
 * What the new athletes cost now and what joins the balance. A team on a deposit plan whose balance is still to come
 * pays the event's deposit for them now (as its first athletes did) and the rest with its balance on the same due
 * date; a team paid in full, or once a deposit is no longer offered (too close to the due date), pays it all now.
 */
export function addedAthletesSplit(r: Registration, eventRow: Record<string, unknown>, priceCents: number, adding: number, now: Date): { amountCents: number; balanceCents: number } {
  if (r.status !== "deposit_paid" || !r.deposit || r.deposit.balanceDueAt.getTime() <= now.getTime()) return { amountCents: priceCents, balanceCents: 0 };
  const firstDay = { date: toDate(eventRow.start_date)!.toISOString().slice(0, 10), timeZone: toText(eventRow.time_zone ?? "") || DEFAULT_TIME_ZONE };
  const plan = depositPlan(toDepositPolicy(eventRow), priceCents, adding, firstDay, now);
  return plan ? { amountCents: plan.todayCents, balanceCents: plan.balanceCents } : { amountCents: priceCents, balanceCents: 0 };
}
