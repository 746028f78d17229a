import type { Request, Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import { momentText } from "../../../shared/texts.ts";
import { formatPrice } from "../../../shared/money.ts";
import { PaymentNotOpenError } from "../../../payments/core.ts";
import { stripeScripts } from "../../../payments/setup.ts";
import { ChangePayPage, type ChangePayView } from "../../../../views/pages/registration/ChangePages.tsx";
import { findPackage } from "../../../shared/registrations/rules.ts";
import { findChange, type RegistrationChange } from "../../core/tables/changes.ts";
import { PAYMENT_SETUP_ERROR } from "../../core/money/payment.ts";
import { CHANGE_TEXT } from "../../../shared/registrations/changeTexts.ts";
import { prepareChangePayment } from "../pendingChanges.ts";
import { savedCardOf } from "../balance.ts";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";
import type { Opened } from "../links.ts";

/** A change and the manage link it is opened under. */
export type OnChange = { o: Opened; c: RegistrationChange };

/** A paid change's own page (changePayment.routes.tsx): what it changes and costs, and its card while it waits for payment. */
export function changePayPage(deps: RegistrationRouteDeps) {
  function linesOf(o: Opened, c: RegistrationChange): string[] {
    if (c.data.kind === "upgrade") {
      const { dayIds } = c.data;
      const days = o.event.days.filter((d) => dayIds.includes(d.id)).map((d) => d.label);
      return [
        `Package: ${findPackage(o.event, c.data.fromPackageCode)?.label ?? c.data.fromPackageCode} to ${c.data.packageLabel}`,
        `Days: ${days.join("; ")}`,
        `${c.data.packageLabel} is ${formatPrice(c.data.priceCents)}; you paid ${formatPrice(c.data.fromListPriceCents)} for the package you had.`,
      ];
    }
    return [
      ...c.data.athletes.map((a) => `${a.firstName} ${a.lastName} (age ${a.age}, shirt ${a.shirtSize})`),
      `${c.places} × ${formatPrice(c.data.pricePerAthleteCents)} (the team price)`,
      ...(c.data.balanceCents ? [`Today ${formatPrice(c.amountCents)} (the deposit); ${formatPrice(c.data.balanceCents)} is added to the balance, charged with it on its due date`] : []),
    ];
  }

  async function showChange(req: Request, res: Response, { o, c }: OnChange, extra: { message?: string; status?: number } = {}) {
    let status: ChangePayView["status"] = c.status === "pending" && c.reservedUntil.getTime() <= deps.clock().getTime() ? "expired" : c.status;
    let card: ChangePayView["card"] = null;
    let setupError: string | null = null;
    if (status === "pending") {
      try {
        const clientSecret = await prepareChangePayment(deps, o.event, o.r, c);
        if (clientSecret) {
          card = {
            publishableKey: deps.paymentCore.gateway.publishableKey,
            clientSecret,
            amountCents: c.amountCents,
            reference: o.r.reference,
            returnUrl: `${o.base}/changes/${c.id}/paid`,
            doneUrl: `${o.base}/changes/${c.id}`,
            billing: { name: `${o.r.contact.firstName} ${o.r.contact.lastName}`, email: o.r.contact.email, phone: o.r.contact.phone },
            savedCard: savedCardOf(o.r),
          };
        }
      } catch (err) {
        if (err instanceof PaymentNotOpenError) {
          // Paid meanwhile (another tab) or being settled: the change as it now stands.
          const now = (await findChange(deps.db, c.id))!;
          status = now.status === "pending" ? "processing" : now.status;
        } else {
          req.log.error({ err: (err as Error).message, reference: o.r.reference, changeId: c.id }, "could not set up a registration change's PaymentIntent");
          setupError = PAYMENT_SETUP_ERROR.message;
        }
      }
    }
    const a = o.r.athletes[0]!;
    const view: ChangePayView = {
      base: o.base,
      changeHref: `${o.base}/changes/${c.id}`,
      kind: c.kind,
      title: o.r.kind === "team" ? (o.r.teamName ?? `${o.r.contact.firstName} ${o.r.contact.lastName}'s team`) : `${a.firstName} ${a.lastName}`,
      eventTitle: o.event.title,
      reference: o.r.reference,
      lines: linesOf(o, c),
      amountCents: c.amountCents,
      status,
      until: momentText(c.reservedUntil, o.event.timeZone),
      card,
      setupError,
    };
    renderPage(req, res, <ChangePayPage view={view} message={extra.message} />, {
      title: CHANGE_TEXT.payTitle(c.kind),
      description: "Pay for the change to your camp registration.",
      status: extra.status ?? (setupError ? 502 : undefined),
      noindex: true,
      scripts: card ? stripeScripts(deps.paymentCore.gateway) : undefined,
    });
  }

  return showChange;
}
