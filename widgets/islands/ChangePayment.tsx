/**
 * The card payment of a paid registration's change (an upgrade, athletes added to a team) and of a deposit's balance:
 * the same Stripe steps as the other card widgets (widgets/cardPayment.tsx), then the page's return call, then back to
 * the registration. A saved card (the balance's) comes first as one button, with the wallets and another card beside. Without JavaScript the page says card payment needs it (the change itself was made by a form).
 */
import { useState, type FormEvent } from "react";
import { CardElement, useElements, useStripe } from "@stripe/react-stripe-js";
import { CardEntry, WithStripe, type StripeStatus } from "../stripeElements.tsx";
import { apiFetch, ApiError } from "../api.ts";
import { showToast } from "../toast.ts";
import { formatPrice } from "../../src/shared/money.ts";
import { CHANGE_TEXT, savedCardParts } from "../../src/shared/registrations/changeTexts.ts";
import { CARD_STATE_TEXT, ChargedNotice, confirmCard, reportReturn, type CardResult } from "../cardPayment.tsx";
import { WalletPay } from "../WalletPay.tsx";

export interface ChangePaymentProps {
  publishableKey: string;
  clientSecret: string;
  amountCents: number;
  reference: string;
  /** The change page's return call (JSON: the PaymentIntent's id). */
  returnUrl: string;
  /** Where a settled payment goes: the change page, which says what happened. */
  doneUrl: string;
  billing: { name: string; email: string; phone: string };
  /** A card saved on the PaymentIntent's Customer (a deposit's balance): one button first, the wallets and another card beside. */
  savedCard?: { paymentMethodId: string; text: string } | null;
}

const FAILED = "Payment Failed";
const FALLBACK = "Please check your payment information and try again.";

export default function ChangePayment(props: ChangePaymentProps) {
  return <WithStripe publishableKey={props.publishableKey}>{(status) => <Pay {...props} stripeState={status} />}</WithStripe>;
}

function Pay({ clientSecret, amountCents, reference, returnUrl, doneUrl, billing, savedCard, stripeState }: ChangePaymentProps & { stripeState: StripeStatus }) {
  const stripe = useStripe();
  const elements = useElements();
  const [useSaved, setUseSaved] = useState(Boolean(savedCard));
  /** The visitor switched between the saved card and another: the focus follows to what replaced the button. */
  const [switched, setSwitched] = useState(false);
  const choose = (saved: boolean) => {
    setUseSaved(saved);
    setSwitched(true);
  };
  const [busy, setBusy] = useState(false);
  const [cardError, setCardError] = useState<string | null>(null);
  const [paymentError, setPaymentError] = useState<string | null>(null);
  const [charged, setCharged] = useState<"processing" | "received" | null>(null);
  const total = formatPrice(amountCents);

  const fail = (message: string) => {
    setPaymentError(message);
    showToast({ title: FAILED, description: message, variant: "destructive" });
  };

  async function pay(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy || !stripe || !elements) return;
    const card = useSaved && savedCard ? savedCard.paymentMethodId : elements.getElement(CardElement);
    if (!card) return fail(FALLBACK);
    setBusy(true);
    setPaymentError(null);
    try {
      await settle(await confirmCard(stripe, clientSecret, card, billing, FALLBACK, amountCents));
    } catch {
      fail("An unexpected error occurred");
    } finally {
      setBusy(false);
    }
  }

  /** After the card or the wallet: the same answers, the same return call. */
  async function settle(confirmed: CardResult) {
    if (confirmed.kind === "amountChanged") return fail(CARD_STATE_TEXT.amountChanged(formatPrice(confirmed.amountCents)));
    if (confirmed.kind === "declined") return fail(confirmed.message);
    if (confirmed.processing) setCharged("processing");
    const answer = await reportReturn(
      () =>
        apiFetch<{ status?: string }>(returnUrl, { method: "POST", json: { paymentIntentId: confirmed.intentId } }).catch((err: unknown) => {
          if (err instanceof ApiError && err.status < 500) return { status: typeof err.body?.status === "string" ? err.body.status : "failed" };
          throw err;
        }),
      () => setCharged((now) => now ?? "received"),
    );
    if (answer?.status === "pending") setCharged("processing");
    else if (answer) window.location.assign(doneUrl);
  }

  if (charged) return <ChargedNotice state={charged} reference={reference} />;
  const enhanced = stripeState !== "waiting";
  const ready = stripeState === "ready";
  const savedFirst = ready && useSaved && savedCard;
  return (
    <form className="card registration-section change-payment" onSubmit={(e) => void pay(e)} aria-label="Card payment" noValidate>
      {savedFirst ? (
        <button type="submit" className="btn btn-primary btn-block saved-card-pay" disabled={busy} autoFocus={switched}>
          {busy ? "Processing Payment..." : <SavedCardLabel amount={total} text={savedCard.text} />}
        </button>
      ) : null}
      {ready ? (
        <WalletPay
          amountCents={amountCents}
          returnUrl={doneUrl}
          disabled={busy}
          onStart={() => {
            setBusy(true);
            setPaymentError(null);
          }}
          onCancel={() => setBusy(false)}
          prepare={() => Promise.resolve({ clientSecret, amountCents })}
          onResult={(result) => {
            settle(result)
              .catch(() => fail("An unexpected error occurred"))
              .finally(() => setBusy(false));
          }}
        />
      ) : null}
      {savedFirst ? (
        <button type="button" className="btn btn-secondary btn-block" disabled={busy} onClick={() => choose(false)}>{CHANGE_TEXT.anotherCard}</button>
      ) : (
        <fieldset className="payment-fieldset" disabled={busy}>
          <legend>Card Details</legend>
          {!enhanced ? <p className="notice-inline needs-js">{CHANGE_TEXT.needsJavaScript}</p> : null}
          {stripeState === "unavailable" ? <p className="notice-inline" role="alert">Payment processing is temporarily unavailable. Please try again later.</p> : null}
          {ready ? <CardEntry busy={busy} error={cardError} onError={setCardError} autoFocus={switched} /> : null}
        </fieldset>
      )}
      {paymentError ? (
        <div className="payment-error" role="alert">
          <p className="payment-error-title">Payment Error</p>
          <p>{paymentError}</p>
        </div>
      ) : null}
      {enhanced && !savedFirst ? (
        <div className="registration-actions">
          {ready && savedCard ? (
            <button type="button" className="btn btn-link" disabled={busy} onClick={() => choose(true)}>{CHANGE_TEXT.savedCardInstead}</button>
          ) : null}
          <button type="submit" className="btn btn-primary" disabled={busy || !ready}>
            {busy ? "Processing Payment..." : `Pay ${total}`}
          </button>
        </div>
      ) : null}
    </form>
  );
}

/** "Pay $224.00 with Visa •••• 4242", read as "… Visa ending 4242"; the server's wording when it is not "X ending 1234". */
function SavedCardLabel({ amount, text }: { amount: string; text: string }) {
  const parts = savedCardParts(text);
  if (!parts) return <>{`${CHANGE_TEXT.payWith(amount)} ${text}`}</>;
  return (
    <>
      {`${CHANGE_TEXT.payWith(amount)} ${parts.brand} `}
      <span aria-hidden="true">••••</span>
      <span className="visually-hidden">ending</span>
      {` ${parts.last4}`}
    </>
  );
}
