import type { EventDetail } from "../../../shared/events/types.ts";
import { packageName } from "../../../shared/registrations/packages.ts";
import type { PaymentStep } from "../../../../widgets/islands/RegistrationSteps.tsx";
import type { Registration } from "../registration.ts";
import type { RegistrationDeps } from "../deps.ts";
import { discountOf } from "./codes.ts";
import { familyLines } from "../family.ts";
import { amountDueNow, depositCoveredNotice, depositStep } from "./deposit.ts";

/** Step 2's data; `clientSecret` is null when a code made the registration free (no PaymentIntent). */
export async function paymentStep(deps: RegistrationDeps, event: EventDetail, r: Registration, clientSecret: string | null): Promise<PaymentStep> {
  const discount = await discountOf(deps, r);
  return {
    reference: r.reference,
    eventTitle: event.title,
    optionLabel: r.kind === "team" ? `Team Registration (${r.places} athletes)` : packageName(r.packageCode),
    amountCents: amountDueNow(r),
    clientSecret,
    deposit: depositStep(event, r),
    notice: depositCoveredNotice(event, r),
    discount: discount && { code: discount.code, offCents: discount.offCents, listCents: discount.listCents },
    days: event.days.filter((d) => r.dayIds.includes(d.id)).map((d) => d.label),
    family: familyLines(event, r),
  };
}
