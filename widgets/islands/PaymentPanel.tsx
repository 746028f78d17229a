/**
 * The payment panel: the island of /stripe-checkout's card part, and step 2 of an individual registration
 * (RegistrationSteps imports it). Its own island, so the checkout page does not download the registration form and
 * its schema.
 */
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from "react";
import { CardElement, useElements, useStripe } from "@stripe/react-stripe-js";
import { CardEntry, WithStripe, type StripeStatus } from "../stripeElements.tsx";
import { apiFetch, ApiError } from "../api.ts";
import { showToast } from "../toast.ts";
import { formatPrice } from "../../src/shared/money.ts";
import { CsrfContext, Form } from "../../components/Form.tsx";
import { DiscountBox, type DiscountChange, type DiscountView } from "../DiscountBox.tsx";
import { DISCOUNT_TEXT } from "../../src/shared/discounts/rules.ts";
import { declinedText, heldText } from "../../src/shared/texts.ts";
import { focusAndReveal } from "../focus.ts";
import { CARD_STATE_TEXT, ChargedNotice, confirmCard, reportReturn, type CardResult } from "../cardPayment.tsx";
import { WalletPay } from "../WalletPay.tsx";
import { FamilyRows } from "../../components/FamilySummary.tsx";
import type { FamilyLineView } from "../../src/shared/registrations/siblings.ts";

/** What step 2 shows and pays. The client secret travels in the page's props or a JSON answer, never in a URL. */
export interface PaymentStep {
  reference: string;
  eventTitle: string;
  /** 'Full Event', or the package ('2 Days', 'Single Day'...). */
  optionLabel: string;
  /** The days attended, as labelled ('Saturday, June 5'): every day of a full package, else the chosen ones. */
  days?: string[];
  amountCents: number;
  /** null when a discount made the registration free: there is no PaymentIntent. */
  clientSecret: string | null;
  discount: DiscountView | null;
  /** Plan deposit: `amountCents` is today's deposit; the balance, its date and the consent shown next to the Pay button. */
  deposit?: DepositStep | null;
  /** Why the plan chosen as a deposit is paid in full today (a code brought the price to the deposit or below). */
  notice?: string | null;
  /** Siblings registered together: each athlete's package, days, price and sibling discount (null: one athlete, a team). */
  family?: FamilyLineView[] | null;
}

export interface DepositStep {
  totalCents: number;
  balanceCents: number;
  /** "May 22, 2027", in the event's zone. */
  dueText: string;
  consentText: string;
}

export const REGISTRATION_TEXT = {
  needsJavaScript: (team: boolean) => `Card payment needs JavaScript. Please turn JavaScript on in your browser to pay by card; ${heldText(team, false)}.`,
  setupErrorTitle: "Payment Setup Error",
  paymentFailedTitle: "Payment Failed",
  paymentFailed: (m: string) => `Payment could not be processed: ${m}`,
  paymentFailedDefault: "Please check your payment information and try again.",
  unknownError: "An unknown error occurred",
  providerNotReady: { title: "Payment System Unavailable", description: "Payment processing is temporarily unavailable. Please try again later." },
  processing: "Processing Payment...",
  /** The deposit consent's one line beside Pay; its full text (cardConsentText: what is agreed and stored) one tap away. */
  consentShort: (balanceCents: number, dueText: string) => `You authorize us to save this card and charge the ${formatPrice(balanceCents)} balance on ${dueText}.`,
  consentFull: "Read the full authorization",
  redirectMs: 2000,
} as const;

/** Where a confirmed card payment lands: the registration's confirmation, or the team checkout's complete view. */
export function paidUrl(eventId: number, intentId: string, option?: "team"): string {
  return option === "team"
    ? `/stripe-checkout?eventId=${eventId}&option=team&success=true`
    : `/event-registration/${eventId}?paymentSuccess=true&paymentIntentId=${encodeURIComponent(intentId)}`;
}

/** Step 2's summary and card form; also the card part of /stripe-checkout. */
export interface PaymentPanelProps {
  eventId: number;
  publishableKey: string;
  payment: PaymentStep;
  /** Sent to Stripe with the card (the spec: name, e-mail and phone). */
  billing: { name: string; email?: string | undefined; phone?: string | undefined };
  /** Where Back goes without JavaScript (and with it, when there is no onBack). */
  backHref: string;
  csrfToken: string;
  /** Which page the no-JavaScript discount and free-registration forms come back to. */
  from: "register" | "checkout";
  /** 'team' on the team checkout: every call is about the coach's team registration. */
  option?: "team";
  onBack?: () => void;
  onPaid?: (intentId: string) => void;
}

export default function PaymentPanel(props: PaymentPanelProps) {
  return <WithStripe publishableKey={props.publishableKey}>{(status) => <CardPayment {...props} stripeState={status} />}</WithStripe>;
}

function CardPayment({ payment: initialPayment, eventId, onBack, onPaid, stripeState, billing, backHref, csrfToken, from, option }: PaymentPanelProps & { stripeState: StripeStatus }) {
  const stripe = useStripe();
  const elements = useElements();
  const [payment, setPayment] = useState(initialPayment);
  const [refreshRequired, setRefreshRequired] = useState(false);
  const [busy, setBusy] = useState(false);
  const [cardError, setCardError] = useState<string | null>(null);
  const [paymentError, setPaymentError] = useState<string | null>(null);
  const errorRef = useRef<HTMLDivElement>(null);
  const cardRef = useRef<HTMLFieldSetElement>(null);
  // A decline or a failed bank check: the message is where the focus and the eye go (not left on <body>), with the
  // card field above it in view to correct (and the toast above both).
  useEffect(() => {
    if (paymentError !== null) focusAndReveal(errorRef.current, cardRef.current);
  }, [paymentError]);
  /** The card went through: the form gives way to what happens next (never a second payment). */
  const [charged, setCharged] = useState<"processing" | "received" | null>(null);
  /** The server's final word that is not "paid" (refunded: the event filled up; in review). */
  const [settledOther, setSettledOther] = useState<string | null>(null);
  const total = formatPrice(payment.amountCents);

  const fail = (message: string) => {
    setPaymentError(message);
    showToast({ title: REGISTRATION_TEXT.paymentFailedTitle, description: REGISTRATION_TEXT.paymentFailed(message), variant: "destructive" });
  };

  async function pay(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy) return;
    if (!stripe || !elements) {
      showToast({ ...REGISTRATION_TEXT.providerNotReady, variant: "destructive" });
      return;
    }
    const card = elements.getElement(CardElement);
    if (!card) return fail("Card element not found");
    if (!payment.clientSecret) return fail("No client secret returned from payment setup");
    setBusy(true);
    setPaymentError(null);
    try {
      const billingDetails = { name: billing.name || undefined, email: billing.email || undefined, phone: billing.phone || undefined };
      await settle(await confirmCard(stripe, payment.clientSecret, card, billingDetails, REGISTRATION_TEXT.paymentFailedDefault, payment.amountCents));
    } catch {
      fail("An unexpected error occurred");
    } finally {
      setBusy(false);
    }
  }

  /** After the card or the wallet: the same answers, the same return call. */
  async function settle(confirmed: CardResult) {
    if (confirmed.kind === "amountChanged") {
      // The button shows what the intent asks for before anything is charged (a code changed in another tab).
      setPayment((p) => ({ ...p, amountCents: confirmed.amountCents }));
      setRefreshRequired(true);
      return fail(CARD_STATE_TEXT.amountChanged(formatPrice(confirmed.amountCents)));
    }
    if (confirmed.kind === "declined") return fail(declinedText(confirmed.message));
    const { intentId } = confirmed;
    if (confirmed.processing) setCharged("processing");
    // The server's answer (a 4xx is an answer); a network error or a 5xx is retried in the background meanwhile.
    const answer = await reportReturn(
      () =>
        apiFetch<{ status?: string }>(`/api/events/${eventId}/stripe-payment-success`, { method: "POST", json: { paymentIntentId: intentId, option } }).catch((err: unknown) => {
          if (err instanceof ApiError && err.status < 500) return { status: typeof err.body?.status === "string" ? err.body.status : "failed", error: err.serverMessage };
          throw err;
        }),
      () => setCharged((now) => now ?? "received"),
    );
    if (answer?.status === "paid") {
      onPaid?.(intentId);
      setTimeout(() => window.location.assign(paidUrl(eventId, intentId, option)), REGISTRATION_TEXT.redirectMs);
    } else if (answer?.status === "refunded" || answer?.status === "needs_review") {
      setSettledOther((answer as { error?: string }).error ?? REGISTRATION_TEXT.unknownError);
    } else if (answer?.status === "pending") {
      setCharged("processing");
    }
  }

  const wallet = (
    <WalletPay
      amountCents={payment.amountCents}
      saveForBalance={Boolean(payment.deposit)}
      returnUrl={typeof window === "undefined" ? "/" : window.location.pathname + window.location.search}
      disabled={busy || refreshRequired || !payment.clientSecret}
      onStart={() => {
        setBusy(true);
        setPaymentError(null);
      }}
      onCancel={() => setBusy(false)}
      prepare={() => Promise.resolve(payment.clientSecret ? { clientSecret: payment.clientSecret, amountCents: payment.amountCents } : null)}
      onResult={(result) => {
        settle(result)
          .catch(() => fail("An unexpected error occurred"))
          .finally(() => setBusy(false));
      }}
    />
  );

  if (settledOther) {
    return (
      <div className="card registration-section payment-error" role="alert">
        <p>{settledOther}</p>
        <p>Registration reference: <strong>{payment.reference}</strong></p>
      </div>
    );
  }
  if (charged) return <ChargedNotice state={charged} reference={payment.reference} />;

  const enhanced = stripeState !== "waiting";
  const free = payment.amountCents === 0;
  const applyChange = (change: DiscountChange) => {
    setPayment((p) => ({ ...p, amountCents: change.amountCents, discount: change.discount, clientSecret: change.clientSecret ?? p.clientSecret }));
    setRefreshRequired(change.refreshRequired);
    setPaymentError(null);
  };
  const back = enhanced && onBack ? (
    <button type="button" className="btn btn-secondary" onClick={onBack} disabled={busy}>Back</button>
  ) : (
    <a className="btn btn-secondary" href={backHref}>Back</a>
  );
  return (
    <div className="registration-payment payment-layout">
      <section className="card registration-section payment-summary" aria-labelledby="registration-summary-heading">
        <h2 id="registration-summary-heading">Order Summary</h2>
        <dl className="summary-rows">
          {/* On /stripe-checkout the page itself names the event, the option and the days. */}
          {from === "checkout" ? null : (
            <>
              <div><dt>Event</dt><dd>{payment.eventTitle}</dd></div>
              {payment.family ? (
                <FamilyRows lines={payment.family} />
              ) : (
                <>
                  <div><dt>Registration</dt><dd data-testid="registration-option">{payment.optionLabel}</dd></div>
                  {payment.days && payment.days.length > 0 ? <div><dt>Days</dt><dd data-testid="registration-days">{payment.days.join(", ")}</dd></div> : null}
                </>
              )}
            </>
          )}
          {/* The amount before a discount, only when there is one: otherwise the total is the one amount. */}
          {payment.discount ? (
            <>
              <div><dt>Amount</dt><dd>{formatPrice(payment.discount.listCents)}</dd></div>
              <div><dt>{`Discount (${payment.discount.code})`}</dt><dd data-testid="registration-discount">{`-${formatPrice(payment.discount.offCents)}`}</dd></div>
            </>
          ) : null}
          {payment.deposit ? (
            <>
              <div><dt>Total</dt><dd>{formatPrice(payment.deposit.totalCents)}</dd></div>
              <div><dt>{`Balance on ${payment.deposit.dueText}`}</dt><dd data-testid="registration-balance">{formatPrice(payment.deposit.balanceCents)}</dd></div>
              <div className="summary-total"><dt>Pay today</dt><dd data-testid="registration-total">{total}</dd></div>
            </>
          ) : (
            <div className="summary-total"><dt>Total</dt><dd data-testid="registration-total">{total}</dd></div>
          )}
        </dl>
        {payment.notice ? <p className="notice-inline" data-testid="deposit-covered">{payment.notice}</p> : null}
        <p className="muted">{`Reference ${payment.reference}. ${heldText(option === "team")}.`}</p>
      </section>
      <div className="payment-pay">
        <DiscountBox eventId={eventId} csrfToken={csrfToken} from={from} option={option} discount={payment.discount} listCents={payment.discount?.listCents ?? payment.amountCents}
          disabled={busy} onChange={applyChange} />
        {refreshRequired ? <p className="notice-inline" role="alert">{DISCOUNT_TEXT.refresh}</p> : null}
        {free ? (
          <FreeRegistration eventId={eventId} csrfToken={csrfToken} from={from} option={option} code={payment.discount?.code ?? ""} back={back} />
        ) : (
          <form className="card registration-section" onSubmit={(e) => void pay(e)} aria-label="Card payment" noValidate>
            {stripeState === "ready" ? wallet : null}
            <fieldset className="payment-fieldset" disabled={busy} ref={cardRef}>
              <legend>Card Details</legend>
              {!enhanced ? <p className="notice-inline needs-js">{REGISTRATION_TEXT.needsJavaScript(option === "team")}</p> : null}
              {stripeState === "unavailable" ? <p className="notice-inline" role="alert">{REGISTRATION_TEXT.providerNotReady.title}. {REGISTRATION_TEXT.providerNotReady.description}</p> : null}
              {stripeState === "ready" ? <CardEntry busy={busy} error={cardError} onError={setCardError} /> : null}
            </fieldset>
            {paymentError ? (
              <div className="payment-error" role="alert" tabIndex={-1} ref={errorRef}>
                <p className="payment-error-title">Payment Error</p>
                <p>{paymentError || REGISTRATION_TEXT.unknownError}</p>
              </div>
            ) : null}
            {payment.deposit ? <CardConsent deposit={payment.deposit} /> : null}
            <div className="registration-actions">
              {back}
              {enhanced ? (
                <button type="submit" className="btn btn-primary" disabled={busy || stripeState !== "ready" || refreshRequired || !payment.clientSecret}>
                  {busy ? REGISTRATION_TEXT.processing : `Complete Payment - ${total}`}
                </button>
              ) : null}
            </div>
          </form>
        )}
      </div>
    </div>
  );
}

/**
 * The deposit's consent beside Pay: one sentence, and the full text (what is agreed and stored with its version)
 * one tap away in a disclosure that opens without JavaScript too.
 */
function CardConsent({ deposit }: { deposit: DepositStep }) {
  return (
    <details className="card-consent">
      <summary>
        {REGISTRATION_TEXT.consentShort(deposit.balanceCents, deposit.dueText)} <span className="card-consent-more">{REGISTRATION_TEXT.consentFull}</span>
      </summary>
      <p data-testid="card-consent">{deposit.consentText}</p>
    </details>
  );
}

/**
 * The free-registration panel (amount 0): a real form that works without JavaScript; with it, the spec's
 * free form of stripe-payment-success, then the confirmation.
 */
function FreeRegistration({ eventId, csrfToken, from, option, code, back }: { eventId: number; csrfToken: string; from: "register" | "checkout"; option?: "team"; code: string; back: ReactNode }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const done = from === "checkout" ? `/stripe-checkout?eventId=${eventId}${option ? `&option=${option}` : ""}&success=true` : `/register/${eventId}?paymentSuccess=true`;

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await apiFetch(`/api/events/${eventId}/stripe-payment-success`, {
        method: "POST",
        json: { freeRegistration: true, discountCode: code, eventId, option, amount: 0, paymentIntentId: `free_registration_${Date.now()}` },
      });
      showToast({ title: DISCOUNT_TEXT.freeDoneTitle, variant: "success" });
      window.location.assign(done);
    } catch (err) {
      const message = err instanceof ApiError && err.status < 500 ? err.serverMessage ?? DISCOUNT_TEXT.freeFailed : DISCOUNT_TEXT.freeFailedUnexpected;
      setError(message);
      showToast({ title: DISCOUNT_TEXT.freeFailedTitle, description: message, variant: "destructive" });
      setBusy(false);
    }
  }

  return (
    <CsrfContext value={csrfToken}>
    <Form action={`/register/${eventId}/free`} className="card registration-section free-registration" label="Free registration" onSubmit={(e) => void submit(e)}>
      <input type="hidden" name="from" value={from} />
      {option ? <input type="hidden" name="option" value={option} /> : null}
      <input type="hidden" name="discountCode" value={code} />
      <h2>Your registration is free</h2>
      <p>No card is needed: your discount code covers the whole amount.</p>
      {error ? (
        <div className="payment-error" role="alert">
          <p className="payment-error-title">{DISCOUNT_TEXT.freeFailedTitle}</p>
          <p>{error}</p>
        </div>
      ) : null}
      <div className="registration-actions">
        {back}
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? "Completing..." : DISCOUNT_TEXT.freeButton}</button>
      </div>
    </Form>
    </CsrfContext>
  );
}