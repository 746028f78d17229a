import { useEffect, useRef, useState, type FormEvent, type SyntheticEvent } from "react";
import { CardElement, useElements, useStripe } from "@stripe/react-stripe-js";
import { CardEntry, WithStripe, type StripeStatus } from "../stripeElements.tsx";
import { CsrfContext, Field, Form, FormErrors, stateField, SubmitButton } from "../../components/Form.tsx";
import type { FormState } from "../../src/shared/forms.ts";
import type * as z from "zod/mini";
import { CheckoutForm, validateCheckout } from "../../src/shared/cart/schemas.ts";
import { ShippingAddress, SHIPPING_TEXT, shippingCents, US_STATES } from "../../src/shared/orders/rules.ts";
import { CART_TEXT } from "../../src/shared/cart/texts.ts";
import { checkoutFigures } from "../../src/shared/cart/rules.ts";
import { CART_UPDATED_EVENT, latestAnnouncedCart } from "../../src/shared/cart/badge.ts";
import type { CartState } from "./CartStepper.tsx";
import { apiFetch, ApiError } from "../api.ts";
import { showToast } from "../toast.ts";
import { formatPrice, parsePriceCents } from "../../src/shared/money.ts";
import { declinedText } from "../../src/shared/texts.ts";
import { focusAndReveal, focusFirstInvalid } from "../focus.ts";
import { CARD_STATE_TEXT, ChargedNotice, confirmCard, reportReturn, type CardResult } from "../cardPayment.tsx";
import { WalletPay } from "../WalletPay.tsx";
import type { WalletSheet } from "../walletProps.ts";

export interface CardFormProps {
  publishableKey: string;
  csrfToken: string;
  cart: CartState;
  /** Kept values and errors after a post without JavaScript. */
  form: FormState;
  checkoutUrl: string;
  completeUrl: string;
  successUrl: string;
  /** No-JavaScript form target (validates the customer and address fields, then says card entry needs JavaScript). */
  action: string;
  /** SHIPPING_FLAT_RATE_CENTS: the summary shows the same shipping the server charges. */
  shippingFlatRateCents: number;
}

const CHECK_DETAILS = "Check Details and Shipping";

const STATE_OPTIONS = US_STATES.map((s) => ({ value: s.code, label: s.name }));

type CheckoutData = z.output<typeof CheckoutForm>;

const WALLET_US_ONLY = "We ship to US addresses only: choose a US address in your wallet, or fill in the form below.";

/** A wallet may give the state's name ("Alabama") where the form has its code ("AL"). */
function stateCode(state: string): string {
  const wanted = state.trim().toLowerCase();
  return US_STATES.find((s) => s.name.toLowerCase() === wanted)?.code ?? state.trim().toUpperCase();
}

/** The form's values as the schemas read them (`shipping[name]` -> shipping.name). */
function formValues(form: HTMLFormElement) {
  const data = Object.fromEntries(new FormData(form)) as Record<string, string>;
  const shipping: Record<string, string> = {};
  for (const key of ["name", "line1", "line2", "city", "state", "zip"]) shipping[key] = data[`shipping[${key}]`] ?? "";
  return { firstName: data.firstName ?? "", lastName: data.lastName ?? "", email: data.email ?? "", phone: data.phone ?? "", shipping };
}

/** The address once it is complete and valid: then the summary can show shipping and the total. */
function knownAddress(values: unknown): ShippingAddress | null {
  const shipping = values && typeof values === "object" ? (values as { shipping?: unknown }).shipping : undefined;
  const parsed = ShippingAddress.safeParse(shipping ?? {});
  return parsed.success ? parsed.data : null;
}

/**
 * Order summary and card checkout: customer info, the card Element, 'Processing Payment...' while busy.
 */
export default function CardForm(props: CardFormProps) {
  return <WithStripe publishableKey={props.publishableKey}>{(status) => <Checkout {...props} stripeState={status} />}</WithStripe>;
}

function Checkout({ csrfToken, cart: initialCart, form, checkoutUrl, completeUrl, successUrl, action, shippingFlatRateCents, stripeState }: CardFormProps & { stripeState: StripeStatus }) {
  const stripe = useStripe();
  const elements = useElements();
  const [cart, setCart] = useState(initialCart);
  const [state, setState] = useState<FormState>(form);
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
  const [addressReady, setAddressReady] = useState(() => knownAddress(form.values) !== null);
  /** The card went through: the form gives way to what happens next (never a second payment). */
  const [charged, setCharged] = useState<"processing" | "received" | null>(null);

  useEffect(() => {
    // The cart may have changed on this page before this form started (it loads at the first touch).
    const latest = latestAnnouncedCart<CartState>();
    // eslint-disable-next-line react-hooks/set-state-in-effect -- reads the browser (window) after hydration: the server render cannot know it
    if (latest) setCart(latest);
    const onCart = (e: Event) => setCart((e as CustomEvent<CartState>).detail);
    window.addEventListener(CART_UPDATED_EVENT, onCart);
    return () => window.removeEventListener(CART_UPDATED_EVENT, onCart);
  }, []);

  useEffect(() => {
    if (stripeState === "unavailable") showToast({ ...CART_TEXT.providerCannotLoad, variant: "destructive" });
  }, [stripeState]);

  if (cart.cartItems.length === 0) return null;
  const subtotalCents = parsePriceCents(cart.subtotal);
  const figures = checkoutFigures(subtotalCents, addressReady ? shippingCents(subtotalCents, shippingFlatRateCents) : null);
  const shipping = figures.shippingCents;
  // The wallet's sheet shows the shipping before the address is known: it is the same to every US address.
  const walletShippingCents = shippingCents(subtotalCents, shippingFlatRateCents);
  const walletTotalCents = checkoutFigures(subtotalCents, walletShippingCents).totalCents;
  const total = formatPrice(figures.totalCents);
  const blocked = cart.cartItems.find((i) => i.problemMessage)?.problemMessage ?? null;

  function fail(message: string) {
    setPaymentError(message);
    showToast({ title: CART_TEXT.paymentFailedTitle, description: message, variant: "destructive" });
  }

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy) return;
    setPaymentError(null);
    const values = formValues(e.currentTarget);
    const checked = validateCheckout(CheckoutForm, values);
    if (!checked.ok) {
      setState({ values, errors: checked.errors });
      showToast({ title: CART_TEXT.missingInfo.title, description: checked.message, variant: "destructive" });
      // The focus and the eye go to the first field in error once it is marked (not left on Pay, far below it).
      const form = e.currentTarget;
      requestAnimationFrame(() => focusFirstInvalid(form));
      return;
    }
    setState({ values, errors: {} });
    if (!stripe || !elements) {
      showToast({ ...CART_TEXT.providerNotReady, variant: "destructive" });
      return;
    }

    setBusy(true);
    try {
      const intent = await startCheckout(checked.data);
      if (!intent) return;
      const card = elements.getElement(CardElement);
      if (!card) {
        fail(CART_TEXT.paymentFailedFallbacks.cardElement);
        return;
      }
      const { firstName, lastName, email, phone } = checked.data;
      await settle(await confirmCard(stripe, intent.clientSecret, card, { name: `${firstName} ${lastName}`, email, phone: phone || undefined }, CART_TEXT.paymentFailedFallbacks.payment, intent.amountCents));
    } catch {
      fail(CART_TEXT.paymentFailedFallbacks.unexpected);
    } finally {
      setBusy(false);
    }
  }

  /** The checkout call: the order with its lines, contact and address; its PaymentIntent and total, or null (said why). */
  async function startCheckout(data: CheckoutData): Promise<{ clientSecret: string; amountCents: number } | null> {
    try {
      const res = await apiFetch<{ clientSecret?: string; amount?: string }>(checkoutUrl, {
        method: "POST",
        json: {
          items: cart.cartItems.map((i) => ({ id: i.id, shopifyProductId: i.shopifyProductId, shopifyVariantId: i.shopifyVariantId, quantity: i.quantity, selectedSize: i.selectedSize, price: Number(i.price) })),
          customerInfo: { firstName: data.firstName, lastName: data.lastName, email: data.email, phone: data.phone },
          shippingAddress: data.shipping,
        },
      });
      if (!res.clientSecret) throw new Error(CART_TEXT.paymentFailedFallbacks.intent);
      // The order's total as the server just computed it: the card is charged only if the intent asks for that.
      return { clientSecret: res.clientSecret, amountCents: res.amount === undefined ? walletTotalCents : parsePriceCents(res.amount) };
    } catch (err) {
      // An earlier payment of this cart went through: the server took its lines out; show the cart as it is now.
      const redirect = err instanceof ApiError ? err.body?.redirect : undefined;
      if (typeof redirect === "string" && redirect.startsWith("/")) {
        window.location.assign(redirect);
        return null;
      }
      fail((err instanceof ApiError ? err.serverMessage : undefined) ?? CART_TEXT.checkoutFailed);
      return null;
    }
  }

  /** After the card or the wallet: the same answers, the same return call. */
  async function settle(confirmed: CardResult) {
    if (confirmed.kind === "amountChanged") {
      fail(CARD_STATE_TEXT.amountChanged(formatPrice(confirmed.amountCents)));
      return;
    }
    if (confirmed.kind === "declined") {
      fail(declinedText(confirmed.message));
      return;
    }
    if (confirmed.processing) setCharged("processing");
    // The server checks the payment with Stripe, records the order as paid and empties the cart. A network error or
    // a 5xx is retried in the background (the webhook and the reconciliation job record the payment regardless).
    const answer = await reportReturn(
      () =>
        apiFetch<{ status?: string }>(completeUrl, { method: "POST", json: { paymentIntentId: confirmed.intentId } }).catch((err: unknown) => {
          if (err instanceof ApiError && err.status < 500) return { status: typeof err.body?.status === "string" ? err.body.status : "failed" };
          throw err;
        }),
      () => setCharged((now) => now ?? "received"),
    );
    if (answer?.status === "paid") {
      showToast({ ...CART_TEXT.paymentSucceeded, variant: "success" });
      window.location.assign(successUrl);
    } else if (answer?.status === "pending") {
      setCharged("processing");
    } else {
      setCharged((now) => now ?? "received");
    }
  }

  /** The wallet's sheet gave the contact and the address: the same checks as the form's, then the same checkout. */
  function walletCheckout(sheet: WalletSheet) {
    const [firstName = "", ...rest] = sheet.name.trim().split(/\s+/);
    const values = {
      firstName,
      lastName: rest.join(" "),
      email: sheet.email,
      phone: sheet.phone,
      shipping: sheet.shipping ? { name: sheet.shipping.name, line1: sheet.shipping.line1, line2: sheet.shipping.line2, city: sheet.shipping.city, state: stateCode(sheet.shipping.state), zip: sheet.shipping.zip } : {},
    };
    const checked = validateCheckout(CheckoutForm, values);
    if (!checked.ok || (sheet.shipping && sheet.shipping.country !== "US")) {
      fail(checked.ok ? WALLET_US_ONLY : checked.message);
      return Promise.resolve(null);
    }
    return startCheckout(checked.data);
  }

  /** Shipping and the total appear as soon as the address is complete (the server charges the same). */
  function addressChanged(e: SyntheticEvent) {
    const el = (e.target as HTMLElement).closest("form");
    if (el) setAddressReady(knownAddress(formValues(el)) !== null);
  }

  const enhanced = stripeState !== "waiting";
  if (charged) return <ChargedNotice state={charged} />;
  return (
    <section className="card cart-summary" aria-labelledby="order-summary-heading">
      <div className="checkout-summary">
        <h2 id="order-summary-heading">Order Summary</h2>
        <dl className="summary-rows">
          <div><dt>Subtotal</dt><dd data-testid="subtotal">{formatPrice(figures.subtotalCents)}</dd></div>
          <div>
            <dt>Shipping</dt>
            <dd data-testid="shipping">{shipping === null ? CART_TEXT.shippingNote : shipping === 0 ? SHIPPING_TEXT.free : formatPrice(shipping)}</dd>
          </div>
          <div className="summary-total"><dt>Total</dt><dd data-testid="total">{total}</dd></div>
        </dl>
      </div>
      <CsrfContext value={csrfToken}>
        <div className="checkout-form-wrap" onInput={addressChanged} onChange={addressChanged}>
        <Form action={action} className="checkout-form" label="Checkout" onSubmit={(e) => void submit(e)}>
          <FormErrors errors={state.errors} focus={state === form} />
          {stripeState === "ready" ? (
            <WalletPay
              amountCents={walletTotalCents}
              shop={{ subtotalCents, shippingCents: walletShippingCents, shippingLabel: walletShippingCents === 0 ? "Free shipping" : "Standard shipping" }}
              returnUrl={successUrl}
              disabled={busy || blocked !== null}
              onStart={() => {
                setBusy(true);
                setPaymentError(null);
              }}
              onCancel={() => setBusy(false)}
              prepare={walletCheckout}
              onResult={(result) => {
                settle(result)
                  .catch(() => fail(CART_TEXT.paymentFailedFallbacks.unexpected))
                  .finally(() => setBusy(false));
              }}
            />
          ) : null}
          <fieldset disabled={busy}>
            <legend>Customer Information</legend>
            <div className="field-row">
              <Field {...stateField(state, "firstName")} label="First Name" required autoComplete="given-name" />
              <Field {...stateField(state, "lastName")} label="Last Name" required autoComplete="family-name" />
            </div>
            <Field {...stateField(state, "email")} label="Email" type="email" required autoComplete="email" />
            <Field {...stateField(state, "phone")} label="Phone (optional)" type="tel" autoComplete="tel" />
          </fieldset>
          <fieldset disabled={busy}>
            <legend>{SHIPPING_TEXT.legend}</legend>
            <Field {...stateField(state, "shipping.name")} label="Full Name" required autoComplete="shipping name" />
            <Field {...stateField(state, "shipping.line1")} label="Address Line 1" required autoComplete="shipping address-line1" />
            <Field {...stateField(state, "shipping.line2")} label="Address Line 2 (optional)" autoComplete="shipping address-line2" />
            <Field {...stateField(state, "shipping.city")} label="City" required autoComplete="shipping address-level2" />
            <div className="field-row">
              <Field {...stateField(state, "shipping.state")} label="State" required options={STATE_OPTIONS} placeholder="Choose…" />
              <Field {...stateField(state, "shipping.zip")} label="ZIP Code" required autoComplete="shipping postal-code" />
            </div>
            <p className="muted field-hint">We ship to US addresses. Free shipping on orders over $75; otherwise {formatPrice(shippingFlatRateCents)}.</p>
          </fieldset>
          <fieldset ref={cardRef}>
            <legend>Card Details</legend>
            {/* Hidden once the page's script runs (html.js): the card field comes at the first touch of the cart. */}
            {!enhanced ? <p className="notice-inline needs-js">{CART_TEXT.needsJavaScript}</p> : null}
            {stripeState === "unavailable" ? (
              <p className="notice-inline" role="alert">{CART_TEXT.providerCannotLoad.title}. {CART_TEXT.providerCannotLoad.description}</p>
            ) : null}
            {stripeState === "ready" ? <CardEntry busy={busy} error={cardError} onError={setCardError} /> : null}
          </fieldset>
          {paymentError ? (
            <div className="payment-error" role="alert" tabIndex={-1} ref={errorRef}>
              <p className="payment-error-title">{CART_TEXT.paymentFailedTitle}</p>
              <p>{paymentError}</p>
            </div>
          ) : null}
          {blocked ? <p className="notice-inline" role="status">{blocked}</p> : null}
          {/* Without JavaScript the form still checks the details and shows the shipping cost and total (card entry needs JavaScript). */}
          {enhanced ? (
            <SubmitButton className="btn btn-primary btn-block" busy={busy} busyLabel={CART_TEXT.processing} disabled={stripeState !== "ready" || blocked !== null}>
              {`Pay ${total}`}
            </SubmitButton>
          ) : (
            <SubmitButton className="btn btn-secondary btn-block">{CHECK_DETAILS}</SubmitButton>
          )}
        </Form>
        </div>
      </CsrfContext>
    </section>
  );
}
