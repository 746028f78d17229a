import type { Response } from "express";
import type { PageContext } from "../../../http/render.tsx";
import type { EventDetail } from "../../../shared/events/types.ts";
import type { PaymentPanelProps } from "../../../../widgets/islands/RegistrationSteps.tsx";
import type { CheckoutDetails } from "../../../../views/pages/registration/CheckoutPage.tsx";
import type { Registration } from "../../core/registration.ts";
import { checkoutPackageName } from "../../../shared/registrations/packages.ts";
import { preparePayment } from "../../core/money/payment.ts";
import { holdEndsText, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { paymentStep } from "../../core/money/paymentStep.ts";

/** The card form's props for a live hold (payment page). */
export async function paymentPanel(deps: RegistrationRouteDeps, res: Response, event: EventDetail, r: Registration, team: boolean): Promise<PaymentPanelProps> {
  const clientSecret = await preparePayment(deps, r);
  const name = team ? `${r.contact.firstName} ${r.contact.lastName}` : `${r.athletes[0]!.firstName} ${r.athletes[0]!.lastName}`;
  return {
    eventId: event.id,
    publishableKey: deps.paymentCore.gateway.publishableKey,
    payment: await paymentStep(deps, event, r, clientSecret),
    billing: { name, email: r.contact.email, phone: r.contact.phone },
    backHref: team ? `/team-register/${event.id}` : `/register/${event.id}?step=1`,
    csrfToken: (res.locals.page as PageContext).csrfToken,
    from: "checkout",
    ...(team ? { option: "team" as const } : {}),
  };
}

/** What the payment page shows of an individual's hold. */
export function individualDetails(event: EventDetail, r: Registration): CheckoutDetails {
  const athlete = r.athletes[0]!;
  return {
    eventTitle: event.title,
    optionLabel: checkoutPackageName(r.packageCode),
    athleteName: `${athlete.firstName} ${athlete.lastName}`,
    email: r.contact.email,
    days: event.days.filter((d) => r.dayIds.includes(d.id)).map((d) => d.label),
    amountCents: r.listPriceCents,
    reservedUntil: holdEndsText(r.reservedUntil!, event),
  };
}

/** What the payment page shows of a team's hold. */
export function teamDetails(event: EventDetail, r: Registration) {
  return {
    eventTitle: event.title,
    teamName: r.teamName,
    coachName: `${r.contact.firstName} ${r.contact.lastName}`,
    email: r.contact.email,
    athletes: r.athletes.map((a) => ({ name: `${a.firstName} ${a.lastName}`, shirtSize: a.shirtSize ?? "" })),
    pricePerAthleteCents: Math.round(r.listPriceCents / Math.max(1, r.places)),
    amountCents: r.listPriceCents,
    reservedUntil: holdEndsText(r.reservedUntil!, event),
  };
}
