import type { Request, Response } from "express";
import { renderPage, type PageContext } from "../../../http/render.tsx";
import type { FieldErrors } from "../../../shared/forms.ts";
import { stripeScripts } from "../../../payments/setup.ts";
import { registrationStatus, REGISTRATION_STATUS_LABEL, type RegistrationStatus } from "../../../shared/events/rules.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { coachRegistrationState } from "../../../shared/collegeCoachRequests/rules.ts";
import { Widget } from "../../../../views/components/Widget.tsx";
import type { PaymentStep } from "../../../../widgets/islands/RegistrationSteps.tsx";
import { RegisterPage, RegistrationUnavailable } from "../../../../views/pages/registration/RegisterPage.tsx";
import { DEFAULT_PACKAGE, REGISTRATION_ERRORS, dayField, packageOptions, siblingFormValues, type SiblingEntry } from "../../../shared/registrations/rules.ts";
import type { PackageCode } from "../../../shared/registrations/packages.ts";
import { SIBLINGS_FIELD } from "../../../shared/registrations/siblings.ts";
import { siblingsOf } from "../../core/family.ts";
import type { Registration } from "../../core/registration.ts";
import { placesOpen } from "../../waitlist/forSale.ts";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { depositOfferOf } from "../../../../components/PaymentPlanChoice.tsx";
import { returningBoxProps } from "./returningPrefill.tsx";
import { athleteStepValues } from "../athleteValues.ts";

/** Step 1's values from a stored registration (Back, a reload): the same form id, so a resubmit updates it. */
export function valuesOf(event: EventDetail, r: Registration): Record<string, string> {
  const a = r.athletes[0];
  // A waiting-list offer's hold has no athlete yet: its form opens with the package chosen.
  const values: Record<string, string> = !a ? { formSessionId: r.formSessionId, registrationType: r.packageCode } : {
    formSessionId: r.formSessionId,
    registrationType: r.packageCode,
    ...athleteStepValues(a),
    agrees: "on",
  };
  event.days.forEach((d, i) => {
    if (r.dayIds.includes(d.id)) values[dayField(i)] = "on";
  });
  // Siblings: athletes 2 to 4 with their own package and days; a family's offer holds its places with none written yet.
  const siblings = a ? siblingsOf(r) : offeredSiblings(r);
  for (const [i, s] of siblings.entries()) Object.assign(values, siblingFormValues(i + 2, s, event));
  if (siblings.length > 0) values[SIBLINGS_FIELD] = String(siblings.length);
  if (r.deposit) values.paymentPlan = "deposit";
  return values;
}

/** A waiting-list offer's family (no athletes yet): athletes 2 to N blank, each with the entry's package and days. */
function offeredSiblings(r: Registration): SiblingEntry[] {
  const blank: SiblingEntry = {
    registrationType: r.packageCode as PackageCode, dayIds: r.dayIds, firstName: "", lastName: "", grade: "", gender: "" as SiblingEntry["gender"],
    schoolName: "", clubName: undefined, tShirtSize: undefined, specialRequirements: undefined,
  };
  return r.kind === "individual" ? Array.from({ length: r.places - 1 }, () => blank) : [];
}

/** Form posts send strings; only the schema's own fields are kept for re-rendering. */
export function keptValues(body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (k !== "_csrf" && typeof v === "string") out[k] = v.slice(0, 2000);
  return out;
}

/** The individual registration's pages (individual.tsx's handlers answer with them): the steps widget in the event's page, or why it cannot be booked now. */
export function individualPages(deps: RegistrationRouteDeps) {
  const { db, paymentCore } = deps;

  function page(req: Request, res: Response, event: EventDetail, content: React.ReactNode, opts: { status?: number; card?: boolean } = {}) {
    res.set("cache-control", "no-store");
    renderPage(req, res, <RegisterPage event={event} coachRegistration={coachRegistrationState(event, deps.clock())}>{content}</RegisterPage>, {
      title: `Register for ${event.title}`,
      description: `Register for ${event.title}, ${event.dateText}, ${event.location}.`,
      sameForStatelessVisitors: true,
      status: opts.status,
      noindex: true,
      scripts: opts.card ? stripeScripts(paymentCore.gateway) : undefined,
    });
  }

  /** `fixedAthletes`: a waiting-list offer's form registers exactly this many athletes (offeredAthletes). */
  function stepsWidget(req: Request, event: EventDetail, values: Record<string, string>, errors: FieldErrors, payment: PaymentStep | null, fixedAthletes?: number) {
    const ctx = req.res!.locals.page as PageContext;
    return (
      <Widget
        name="RegistrationSteps"
        // Step 1 works as a plain form until the visitor first touches it; the payment step's card form starts at once.
        load={payment ? "eager" : "interaction"}
        props={{
          eventId: event.id,
          eventTitle: event.title,
          packages: packageOptions(event),
          days: event.days,
          csrfToken: ctx.csrfToken,
          publishableKey: paymentCore.gateway.publishableKey,
          action: `/register/${event.id}`,
          values: { registrationType: DEFAULT_PACKAGE, ...values, formSessionId: values.formSessionId || ctx.newFormId() },
          errors,
          payment,
          depositOffer: depositOfferOf(event, deps.clock()),
          returning: payment ? null : returningBoxProps(req, event, "register"),
          siblingDiscount: event.siblingDiscount,
          fixedAthletes,
        }}
      />
    );
  }

  async function status(event: EventDetail, except?: number): Promise<RegistrationStatus> {
    const now = deps.clock();
    return registrationStatus(event, await placesOpen(db, event.id, now, except), now);
  }

  function unavailable(req: Request, res: Response, event: EventDetail, st: Exclude<RegistrationStatus, "open">, code = 200) {
    const message = st === "closed" ? REGISTRATION_ERRORS.closed : REGISTRATION_ERRORS.soldOut;
    page(req, res, event, <RegistrationUnavailable title={REGISTRATION_STATUS_LABEL[st]} message={message} eventId={event.id} />, { status: code });
  }

  return { page, stepsWidget, status, unavailable };
}
