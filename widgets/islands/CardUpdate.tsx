/**
 * "Use another card" for a deposit plan's balance: the card is saved through a SetupIntent (Stripe.js
 * confirmCardSetup, 3-D Secure when the bank asks for it), then the page's return call keeps it on the registration
 * for the next charge. Without JavaScript the page says a card needs it, as every card form of the site does.
 */
import { useState, type FormEvent } from "react";
import { CardElement, useElements, useStripe } from "@stripe/react-stripe-js";
import { CardEntry, WithStripe, type StripeStatus } from "../stripeElements.tsx";
import { apiFetch, ApiError } from "../api.ts";
import { showToast } from "../toast.ts";

export interface CardUpdateProps {
  publishableKey: string;
  clientSecret: string;
  setupIntentId: string;
  /** The return call (JSON: the SetupIntent's id). */
  doneUrl: string;
  /** Where the saved card is shown: the registration's page. */
  backUrl: string;
  billing: { name: string; email: string; phone: string };
}

export const CARD_UPDATE_TEXT = {
  needsJavaScript: "Saving a card needs JavaScript. Please turn JavaScript on in your browser; your current card stays as it is.",
  save: "Save This Card",
  saving: "Saving Card...",
  failedTitle: "Card Not Saved",
  fallback: "The card could not be saved. Please check it and try again.",
} as const;

export default function CardUpdate(props: CardUpdateProps) {
  return <WithStripe publishableKey={props.publishableKey}>{(status) => <Save {...props} stripeState={status} />}</WithStripe>;
}

function Save({ clientSecret, setupIntentId, doneUrl, backUrl, billing, stripeState }: CardUpdateProps & { stripeState: StripeStatus }) {
  const stripe = useStripe();
  const elements = useElements();
  const [busy, setBusy] = useState(false);
  const [cardError, setCardError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const fail = (message: string) => {
    setError(message);
    showToast({ title: CARD_UPDATE_TEXT.failedTitle, description: message, variant: "destructive" });
  };

  async function save(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy || !stripe || !elements) return;
    const card = elements.getElement(CardElement);
    if (!card) return fail(CARD_UPDATE_TEXT.fallback);
    setBusy(true);
    setError(null);
    try {
      const result = await stripe.confirmCardSetup(clientSecret, { payment_method: { card, billing_details: billing } });
      if (result.error) return fail(result.error.message ?? CARD_UPDATE_TEXT.fallback);
      await apiFetch(doneUrl, { method: "POST", json: { setupIntentId } });
      window.location.assign(backUrl);
    } catch (err) {
      fail(err instanceof ApiError ? err.serverMessage ?? CARD_UPDATE_TEXT.fallback : CARD_UPDATE_TEXT.fallback);
    } finally {
      setBusy(false);
    }
  }

  const enhanced = stripeState !== "waiting";
  return (
    <form className="card registration-section" onSubmit={(e) => void save(e)} aria-label="New card" noValidate>
      <fieldset disabled={busy}>
        <legend>New Card</legend>
        {!enhanced ? <p className="notice-inline needs-js">{CARD_UPDATE_TEXT.needsJavaScript}</p> : null}
        {stripeState === "unavailable" ? <p className="notice-inline" role="alert">Payment processing is temporarily unavailable. Please try again later.</p> : null}
        {stripeState === "ready" ? <CardEntry busy={busy} error={cardError} onError={setCardError} /> : null}
      </fieldset>
      {error ? (
        <div className="payment-error" role="alert">
          <p className="payment-error-title">Card Not Saved</p>
          <p>{error}</p>
        </div>
      ) : null}
      {enhanced ? (
        <div className="registration-actions">
          <button type="submit" className="btn btn-primary" disabled={busy || stripeState !== "ready"}>
            {busy ? CARD_UPDATE_TEXT.saving : CARD_UPDATE_TEXT.save}
          </button>
        </div>
      ) : null}
    </form>
  );
}
