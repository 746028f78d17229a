import type { Knex } from "knex";
import { placesTakenNow } from "../core/lapse.ts";
import { enqueueEmail } from "../../email/outbox.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { formatPrice } from "../../shared/money.ts";
import { toDate } from "../../db/rows.ts";
import type { Registration } from "../core/registration.ts";
import { addTeamAthletes, replaceDays } from "../core/tables/athletes.ts";
import { moveChange, type RegistrationChange } from "../core/tables/changes.ts";
import { addPaid, findByReference, setPackage } from "../core/tables/registrations.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { permissions } from "../core/permissions.ts";
import { placesForSale } from "../waitlist/forSale.ts";
import { registrationChangedEmail } from "./email.ts";
import { queueFamilyLinks } from "./familyLinks.ts";

/** A paid change applied to its registration (paidChanges.ts, under the aggregate's locks), or why it no longer can be. */

/** Why a paid change can no longer be applied to the registration, or null when it can. Under the aggregate's locks. */
export async function cannotApply(deps: RegistrationDeps, trx: Knex.Transaction, c: RegistrationChange, r: Registration, eventRow: Record<string, unknown>, event: EventDetail, now: Date, byOperator: boolean): Promise<string | null> {
  // A team on a deposit plan takes changes as a paid one does (the manage page's permissions); a change that raises
  // the balance needs the balance still to come (not charged meanwhile: the registration would read paid and owe).
  const addsToBalance = c.data.kind === "add_athletes" && (c.data.balanceCents ?? 0) > 0;
  if (addsToBalance ? r.status !== "deposit_paid" : r.status !== "paid" && r.status !== "deposit_paid") return `the registration is ${r.status}`;
  if (permissions(r.status, event, toDate(eventRow.changes_freeze_at), now).phase !== "open") return "the deadline for changes has passed";
  if (c.data.kind === "upgrade") {
    if (r.version !== c.pricedVersion || r.packageCode !== c.data.fromPackageCode || r.listPriceCents !== c.data.fromListPriceCents) return "the registration changed after the upgrade was priced";
    return null;
  }
  const active = r.athletes.filter((a) => a.withdrawnAt === null).length;
  if (active + c.places > deps.limits.maxTeamAthletes) return "the team would be larger than a team may be";
  const held = byOperator || c.status === "needs_review" || (c.status === "pending" && c.reservedUntil.getTime() > now.getTime());
  if (held) return null;
  // A payment for a lapsed hold takes its places only when they are still free and the waiting list does not keep them.
  const free = Number(eventRow.capacity) - (await placesTakenNow(trx, c.eventId, eventRow, now));
  if ((await placesForSale(trx, c.eventId, free, now)) < c.places) return "the hold expired and the event has no places for the athletes";
  return null;
}

/** The change takes its payment: the registration is changed at a new version, the amount paid grows, the contact is e-mailed. */
export async function applyPaidChange(deps: RegistrationDeps, trx: Knex.Transaction, c: RegistrationChange, r: Registration, event: EventDetail, now: Date): Promise<void> {
  let what: string;
  if (c.data.kind === "upgrade") {
    await setPackage(trx, r.id, { code: c.data.packageCode, label: c.data.packageLabel, priceCents: c.data.priceCents }, r.version + 1, now);
    await replaceDays(trx, r.id, c.data.dayIds);
    what = `package from ${r.packageLabel} to ${c.data.packageLabel}, ${formatPrice(c.amountCents)} paid`;
  } else {
    await addTeamAthletes(trx, r, c.data.athletes, c.amountCents + (c.data.balanceCents ?? 0), now);
    const names = c.data.athletes.map((a) => `${a.firstName} ${a.lastName}`).join(", ");
    const later = c.data.balanceCents ? `, ${formatPrice(c.data.balanceCents)} added to the balance` : "";
    what = `${c.places} ${c.places === 1 ? "athlete" : "athletes"} added (${names}), ${formatPrice(c.amountCents)} paid${later}`;
  }
  await addPaid(trx, r.id, c.amountCents, now);
  await moveChange(trx, c.id, "pay", now, { paid_at: now });
  const changed = (await findByReference(trx, r.reference))!;
  await enqueueEmail(trx, registrationChangedEmail(deps.site, event, changed, [what]));
  // The new athletes' families get their own links, as the team's first athletes did when it was paid.
  if (c.data.kind === "add_athletes") await queueFamilyLinks(trx, deps, event, changed, now);
}
