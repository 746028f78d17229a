import { eventHoursText } from "../../../shared/events/rules.ts";
import { deadlineText, stampText } from "../../../shared/texts.ts";
import { formatPrice } from "../../../shared/money.ts";
import type { ManageView } from "../../../../views/pages/registration/ManagePage.tsx";
import { coversEveryDay, findPackage } from "../../../shared/registrations/rules.ts";
import type { RegistrationDeps } from "../../core/deps.ts";
import type { Permissions } from "../../core/permissions.ts";
import { tierDeadlines } from "../../../shared/registrations/changePolicy.ts";
import { cancellationQuote } from "../cancel.ts";
import { GUARDIAN_MISSING, missingFor } from "../familyRules.ts";
import { downgradeOptions } from "../downgrade.ts";
import type { Opened } from "../links.ts";
import { balanceView } from "../balance.ts";
import { isRegistered } from "../../core/states.ts";
import { familyLines } from "../../core/family.ts";
import { registrationSubject } from "../../core/email.ts";

const STATUS_LABEL: Record<string, string> = {
  paid: "Paid",
  deposit_paid: "Deposit paid",
  balance_overdue: "Balance overdue",
  needs_review: "Payment being reviewed",
  withdrawn: "Canceled",
  refunded: "Refunded",
  refund_failed: "Canceled: the refund did not go through, and we are sending it again",
};

/** The manage page's view of a registration: what it shows, what may change now, and the downgrades it offers. */
export function manageView(deps: RegistrationDeps, o: Opened, p: Permissions): ManageView {
  const { r, event } = o;
  const pkg = findPackage(event, r.packageCode);
  const zone = event.timeZone;
  const paid = r.amountPaidCents ?? 0;
  const family = familyLines(event, r);
  return {
    base: o.base,
    reference: r.reference,
    kind: r.kind,
    title: r.kind === "team" ? (r.teamName ?? `${r.contact.firstName} ${r.contact.lastName}'s team`) : registrationSubject(r),
    statusLabel: STATUS_LABEL[r.status] ?? r.status,
    eventTitle: event.title,
    eventId: event.id,
    dateText: event.dateText,
    hours: eventHoursText(event),
    location: event.location,
    packageLabel: r.kind === "team" ? `${r.packageLabel} (${r.places} athletes)` : r.packageLabel,
    days: event.days.map((d) => ({ id: d.id, label: d.label, attended: r.dayIds.includes(d.id) })),
    // A family's days change athlete by athlete (familyDays), not on the details form.
    everyDay: r.kind === "team" || !pkg || coversEveryDay(pkg, event) || family !== null,
    dayCount: pkg?.dayCount ?? event.days.length,
    familyLinks: r.kind === "team" && isRegistered(r.status) && p.phase !== "closed",
    athletes: r.athletes.map((a) => ({
      position: a.position,
      active: a.withdrawnAt === null,
      waiverText: a.waiver ? `Waiver signed (version ${a.waiver.version}) by ${a.waiver.signedName}, ${a.waiver.relationship}` : "Waiver not signed yet",
      // An individual's waiver was agreed to on the registration form: only a missing guardian contact is asked for.
      missing: r.kind === "individual" ? (r.guardianMissing ? [GUARDIAN_MISSING] : []) : missingFor(a),
      name: `${a.firstName} ${a.lastName}${a.withdrawnAt ? " (canceled)" : ""}`,
      detail: [a.grade ? `Grade ${a.grade}` : a.age !== null ? `Age ${a.age}` : "", a.schoolName ? `School: ${a.schoolName}` : ""].filter(Boolean),
      shirtSize: a.shirtSize ?? "",
      emergency: `${a.emergencyContactName}, ${a.emergencyContactPhone}`,
      medical: a.specialRequirements ?? "",
      ...(r.kind === "individual" && r.guardian ? { guardian: `${r.guardian.name}, ${r.guardian.email}, ${r.guardian.phone}` } : {}),
    })),
    amountPaidCents: paid,
    amountRefundedCents: r.amountRefundedCents,
    canceledText: r.withdrawnAt
      ? `Canceled on ${stampText(r.withdrawnAt, zone)}. ${r.withdrawalRefundCents ? `The policy gave back ${formatPrice(r.withdrawalRefundCents)}; it shows under Refunded once Stripe confirms it.` : "The policy gave no refund."}`
      : null,
    phase: p.phase,
    changesUntil: deadlineText(p.freezeAt, zone),
    reason: p.reason,
    canCancel: p.canCancel,
    refundNowCents: cancellationQuote(r, { whole: true }, p.startsAt, deps.clock()).cents,
    refundNowPercent: p.refundPercent,
    tierDeadlines: tierDeadlines(p.startsAt).map((t) => ({ percent: t.percent, until: deadlineText(t.until, zone) })),
    version: r.version,
    family,
    // A family's packages are each athlete's own: the page offers no package change for it.
    downgrades: p.phase === "open" && !family
      ? downgradeOptions(event, r).map((d) => {
          const option = findPackage(event, d.code)!;
          return { ...d, dayCount: option.dayCount, everyDay: coversEveryDay(option, event) };
        })
      : [],
    // Each athlete of a family on a package of fewer days than the event's may choose its days again (issue 43).
    familyDays: p.phase === "open" && family
      ? r.athletes.flatMap((a) => {
          const own = a.family && a.withdrawnAt === null ? findPackage(event, a.family.packageCode) : undefined;
          if (!a.family || !own || coversEveryDay(own, event)) return [];
          const dayIds = a.family.dayIds;
          return [{ position: a.position, name: `${a.firstName} ${a.lastName}`, dayCount: own.dayCount, days: event.days.map((d) => ({ id: d.id, label: d.label, attended: dayIds.includes(d.id) })) }];
        })
      : [],
    pending: null,
    balance: balanceView(event, r, o.base, deps.clock()),
  };
}
