/**
 * The camp payment plans as every page shows them: "Pay in full $Z" beside "Pay today $X, then $Y on DATE". The
 * amounts come from the shared rule (src/shared/registrations/deposits.ts) on the event's policy, the same rule the
 * server decides the hold with; the server's clock is passed in, so the page and the widget agree.
 */
import { DEPOSIT_TEXT, depositPlan, type DepositPlan, type DepositPolicy, type FirstDay, type PaymentPlan } from "../../src/shared/registrations/deposits.ts";

/** What a page or widget needs to offer the plans: the event's policy, its first day and zone, the server's time. */
export interface DepositOffer {
  policy: DepositPolicy;
  firstDay: FirstDay;
  /** The server's clock when the page was made (ms). */
  nowMs: number;
}

export function depositOfferOf(event: { depositPolicy: DepositPolicy; startDate: Date; timeZone: string }, now: Date): DepositOffer {
  return { policy: event.depositPolicy, firstDay: { date: event.startDate.toISOString().slice(0, 10), timeZone: event.timeZone }, nowMs: now.getTime() };
}

export function planFor(offer: DepositOffer | null | undefined, priceCents: number, athletes: number): DepositPlan | null {
  return offer ? depositPlan(offer.policy, priceCents, athletes, offer.firstDay, new Date(offer.nowMs)) : null;
}

/** The event page's line under a price: both ways to pay, or nothing when the event offers no deposit now. */
export function PaymentPlansLine({ offer, priceCents, athletes = 1 }: { offer: DepositOffer | null | undefined; priceCents: number; athletes?: number }) {
  const plan = planFor(offer, priceCents, athletes);
  if (!plan || !offer) return null;
  return (
    <p className="payment-plans-line">
      <span>{DEPOSIT_TEXT.payInFull(priceCents)}</span> <span aria-hidden="true">·</span> <span>{DEPOSIT_TEXT.payDeposit(plan, offer.firstDay.timeZone)}</span>
    </p>
  );
}

/**
 * The visitor's choice in a registration form: a radio `paymentPlan` (full or deposit) that works without JavaScript;
 * nothing is shown (plan full) when no deposit is offered for this price now.
 */
export function PaymentPlanChoice(props: {
  offer: DepositOffer | null | undefined;
  priceCents: number;
  athletes: number;
  value: string | undefined;
  onChange?: (plan: PaymentPlan) => void;
  error?: string;
}) {
  const plan = planFor(props.offer, props.priceCents, props.athletes);
  if (!plan || !props.offer) return null;
  const chosen = props.value === "deposit" ? "deposit" : "full";
  const option = (value: PaymentPlan, text: string) => (
    <label className="package-option">
      <input type="radio" name="paymentPlan" value={value} {...(props.onChange ? { checked: chosen === value, onChange: () => props.onChange?.(value) } : { defaultChecked: chosen === value })} />
      <span className="package-option-label">{text}</span>
    </label>
  );
  return (
    <fieldset className="card registration-section payment-plans">
      <legend>{DEPOSIT_TEXT.planLegend}</legend>
      <div className="package-options">
        {option("full", DEPOSIT_TEXT.payInFull(props.priceCents))}
        {option("deposit", DEPOSIT_TEXT.payDeposit(plan, props.offer.firstDay.timeZone))}
      </div>
      {props.error ? <p className="field-error">{props.error}</p> : null}
    </fieldset>
  );
}
