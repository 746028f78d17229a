import { useEffect, useState, type FormEvent } from "react";
import { CardElement, Elements, useElements, useStripe } from "@stripe/react-stripe-js";
import type { Stripe, StripeCardElementChangeEvent } from "@stripe/stripe-js";
import { CsrfContext, Form, FormErrors, TextField } from "../views/components/Form.tsx";
import type { FormState } from "../src/http/forms.ts";
import { validate } from "../src/http/forms.ts";
import { CART_TEXT, CustomerInfo } from "../src/cart/schemas.ts";
import { CART_UPDATED_EVENT } from "../src/cart/badge.ts";
import type { CartState } from "./CartStepper.tsx";
import { apiFetch, ApiError } from "./api.ts";
import { showToast } from "./toast.ts";
import { formatPrice } from "../src/money.ts";

export interface CardFormProps {
  publishableKey: string;
  csrfToken: string;
  cart: CartState;
  /** Kept values and errors after a post without JavaScript. */
  form: FormState;
  checkoutUrl: string;
  completeUrl: string;
  successUrl: string;
  /** No-JavaScript form target (validates the customer fields, then says card entry needs JavaScript). */
  action: string;
}

const CARD_STYLE = {
  base: { color: "#f4f4f5", fontSize: "16px", iconColor: "#f4f4f5", "::placeholder": { color: "#a1a1aa" } },
  invalid: { color: "#f87171", iconColor: "#f87171" },
};

type StripeState = { status: "waiting" } | { status: "ready"; stripe: Stripe } | { status: "unavailable" };

/**
 * Order summary and card checkout: customer info, the card Element, 'Processing Payment...' while busy.
 * Rendered on the server without Stripe (the page then says card entry needs JavaScript); in the browser
 * it takes Stripe.js (real or the offline fake) from window.Stripe, which the page loads before the widgets.
 */
export default function CardForm(props: CardFormProps) {
  const [stripe, setStripe] = useState<StripeState>({ status: "waiting" });
  useEffect(() => {
    const factory = (window as unknown as { Stripe?: (key: string) => Stripe }).Stripe;
    try {
      setStripe(factory ? { status: "ready", stripe: factory(props.publishableKey) } : { status: "unavailable" });
    } catch {
      setStripe({ status: "unavailable" });
    }
  }, [props.publishableKey]);

  return (
    <Elements stripe={stripe.status === "ready" ? stripe.stripe : null}>
      <Checkout {...props} stripeState={stripe.status} />
    </Elements>
  );
}

function Checkout({ csrfToken, cart: initialCart, form, checkoutUrl, completeUrl, successUrl, action, stripeState }: CardFormProps & { stripeState: StripeState["status"] }) {
  const stripe = useStripe();
  const elements = useElements();
  const [cart, setCart] = useState(initialCart);
  const [state, setState] = useState<FormState>(form);
  const [busy, setBusy] = useState(false);
  const [cardError, setCardError] = useState<string | null>(null);
  const [paymentError, setPaymentError] = useState<string | null>(null);

  useEffect(() => {
    const onCart = (e: Event) => setCart((e as CustomEvent<CartState>).detail);
    window.addEventListener(CART_UPDATED_EVENT, onCart);
    return () => window.removeEventListener(CART_UPDATED_EVENT, onCart);
  }, []);

  useEffect(() => {
    if (stripeState === "unavailable") showToast({ ...CART_TEXT.providerCannotLoad, variant: "destructive" });
  }, [stripeState]);

  if (cart.cartItems.length === 0) return null;
  const total = formatPrice(Math.round(Number(cart.subtotal) * 100));
  const blocked = cart.cartItems.find((i) => i.problemMessage)?.problemMessage ?? null;

  function fail(message: string) {
    setPaymentError(message);
    showToast({ title: CART_TEXT.paymentFailedTitle, description: message, variant: "destructive" });
  }

  async function submit(e: FormEvent<HTMLElement>) {
    e.preventDefault();
    if (busy) return;
    setPaymentError(null);
    const data = Object.fromEntries(new FormData(e.target as HTMLFormElement)) as Record<string, string>;
    const values = { firstName: data.firstName ?? "", lastName: data.lastName ?? "", email: data.email ?? "", phone: data.phone ?? "" };
    const checked = validate(CustomerInfo, values);
    if (!checked.ok) {
      setState({ values, errors: checked.errors });
      const missing = Object.values(checked.errors).includes(CART_TEXT.missingInfo.description);
      showToast(missing ? { ...CART_TEXT.missingInfo, variant: "destructive" } : { title: CART_TEXT.missingInfo.title, description: checked.message, variant: "destructive" });
      return;
    }
    setState({ values, errors: {} });
    if (!stripe || !elements) {
      showToast({ ...CART_TEXT.providerNotReady, variant: "destructive" });
      return;
    }

    setBusy(true);
    try {
      let clientSecret: string;
      try {
        const res = await apiFetch<{ clientSecret?: string }>(checkoutUrl, {
          method: "POST",
          json: {
            items: cart.cartItems.map((i) => ({ id: i.id, shopifyProductId: i.shopifyProductId, shopifyVariantId: i.shopifyVariantId, quantity: i.quantity, selectedSize: i.selectedSize, price: Number(i.price) })),
            customerInfo: checked.data,
          },
        });
        if (!res.clientSecret) throw new Error(CART_TEXT.paymentFailedFallbacks.intent);
        clientSecret = res.clientSecret;
      } catch (err) {
        fail((err instanceof ApiError ? err.serverMessage : undefined) ?? CART_TEXT.checkoutFailed);
        return;
      }

      const card = elements.getElement(CardElement);
      if (!card) {
        fail(CART_TEXT.paymentFailedFallbacks.cardElement);
        return;
      }
      const { firstName, lastName, email, phone } = checked.data;
      const result = await stripe.confirmCardPayment(clientSecret, {
        payment_method: { card, billing_details: { name: `${firstName} ${lastName}`, email, phone: phone || undefined } },
      });
      if (result.error) {
        fail(result.error.message ?? CART_TEXT.paymentFailedFallbacks.payment);
        return;
      }
      if (result.paymentIntent?.status !== "succeeded") {
        fail(CART_TEXT.paymentFailedFallbacks.payment);
        return;
      }
      // The server checks the payment with Stripe, records the order as paid and empties the cart.
      // Should this call fail, the webhook still records the payment; the visitor was charged either way.
      await apiFetch(completeUrl, { method: "POST", json: { paymentIntentId: result.paymentIntent.id } }).catch(() => undefined);
      showToast({ ...CART_TEXT.paymentSucceeded, variant: "success" });
      window.location.assign(successUrl);
    } catch {
      fail(CART_TEXT.paymentFailedFallbacks.unexpected);
    } finally {
      setBusy(false);
    }
  }

  const enhanced = stripeState !== "waiting";
  return (
    <section className="card cart-summary" aria-labelledby="order-summary-heading">
      <h2 id="order-summary-heading">Order Summary</h2>
      <dl className="summary-rows">
        <div><dt>Subtotal</dt><dd data-testid="subtotal">{total}</dd></div>
        <div><dt>Shipping</dt><dd>{CART_TEXT.shippingNote}</dd></div>
        <div className="summary-total"><dt>Total</dt><dd data-testid="total">{total}</dd></div>
      </dl>
      <CsrfContext value={csrfToken}>
        <div className="checkout-form-wrap" onSubmit={submit}>
          <Form action={action} className="checkout-form" label="Checkout">
            <FormErrors state={state} />
            <fieldset disabled={busy}>
              <legend>Customer Information</legend>
              <div className="field-row">
                <TextField name="firstName" label="First Name" state={state} required autoComplete="given-name" />
                <TextField name="lastName" label="Last Name" state={state} required autoComplete="family-name" />
              </div>
              <TextField name="email" label="Email" type="email" state={state} required autoComplete="email" />
              <TextField name="phone" label="Phone (optional)" type="tel" state={state} autoComplete="tel" />
            </fieldset>
            <fieldset>
              <legend>Card Details</legend>
              {!enhanced ? <p className="notice-inline">{CART_TEXT.needsJavaScript}</p> : null}
              {stripeState === "unavailable" ? (
                <p className="notice-inline" role="alert">{CART_TEXT.providerCannotLoad.title}. {CART_TEXT.providerCannotLoad.description}</p>
              ) : null}
              {stripeState === "ready" ? (
                <>
                  <div className="card-element">
                    <CardElement options={{ style: CARD_STYLE, disabled: busy }} onChange={(ev: StripeCardElementChangeEvent) => setCardError(ev.error?.message ?? null)} />
                  </div>
                  {cardError ? <p className="field-error" role="alert">{cardError}</p> : null}
                </>
              ) : null}
            </fieldset>
            {paymentError ? (
              <div className="payment-error" role="alert">
                <p className="payment-error-title">{CART_TEXT.paymentFailedTitle}</p>
                <p>{paymentError}</p>
              </div>
            ) : null}
            {blocked ? <p className="notice-inline" role="status">{blocked}</p> : null}
            <button type="submit" className="btn btn-primary btn-block" disabled={busy || stripeState !== "ready" || blocked !== null}>
              {busy ? CART_TEXT.processing : `Pay ${total}`}
            </button>
          </Form>
        </div>
      </CsrfContext>
    </section>
  );
}
