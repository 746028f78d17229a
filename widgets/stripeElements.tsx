import { useEffect, useState, type ReactNode } from "react";
import { CardElement, Elements } from "@stripe/react-stripe-js";
import type { Stripe } from "@stripe/stripe-js";

/** The card Element's look on the site's dark panels. */
export const CARD_STYLE = {
  base: { color: "#f4f4f5", fontSize: "16px", iconColor: "#f4f4f5", "::placeholder": { color: "#a1a1aa" } },
  invalid: { color: "#f87171", iconColor: "#f87171" },
};

/** 'waiting' on the server and until the browser has looked; 'unavailable' when Stripe.js did not load. */
export type StripeStatus = "waiting" | "ready" | "unavailable";

type StripeState = { status: "waiting" } | { status: "ready"; stripe: Stripe } | { status: "unavailable" };

/**
 * Stripe Elements around a card form: Stripe.js (real, or the offline fake) comes from window.Stripe, which the
 * page loads before its widgets; rendered on the server without it, so the form can say card entry needs JavaScript.
 */
export function WithStripe({ publishableKey, children }: { publishableKey: string; children: (status: StripeStatus) => ReactNode }) {
  const [stripe, setStripe] = useState<StripeState>({ status: "waiting" });
  useEffect(() => {
    const factory = (window as unknown as { Stripe?: (key: string) => Stripe }).Stripe;
    try {
      // eslint-disable-next-line react-hooks/set-state-in-effect -- reads the browser (window) after hydration: the server render cannot know it
      setStripe(factory ? { status: "ready", stripe: factory(publishableKey) } : { status: "unavailable" });
    } catch {
      setStripe({ status: "unavailable" });
    }
  }, [publishableKey]);
  return <Elements stripe={stripe.status === "ready" ? stripe.stripe : null}>{children(stripe.status)}</Elements>;
}

/**
 * The card box and its error line, as both card widgets show them (the error is Stripe.js's own wording).
 * `autoFocus`: the visitor just asked for it ("Use another card"), so the focus goes into it, not back to the page.
 */
export function CardEntry({ busy, error, onError, autoFocus = false }: { busy: boolean; error: string | null; onError: (message: string | null) => void; autoFocus?: boolean }) {
  return (
    <>
      <div className="card-element">
        <CardElement options={{ style: CARD_STYLE, disabled: busy }} onChange={(ev) => onError(ev.error?.message ?? null)} onReady={autoFocus ? (el) => el.focus() : undefined} />
      </div>
      {error ? <p className="field-error" role="alert">{error}</p> : null}
    </>
  );
}
