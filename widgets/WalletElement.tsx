/**
 * The Express Checkout Element itself (see WalletPay.tsx): its own chunk, loaded when a payment form shows it.
 */
import { useMemo, useState } from "react";
import { Elements, ExpressCheckoutElement, useElements, useStripe } from "@stripe/react-stripe-js";
import type { StripeElementsOptionsMode, StripeExpressCheckoutElementClickEvent, StripeExpressCheckoutElementConfirmEvent } from "@stripe/stripe-js";
import { confirmWallet } from "./cardPayment.tsx";
import type { WalletPayProps, WalletSheet } from "./walletProps.ts";

const WALLET_TEXT = {
  or: "Or pay by card",
  label: "Pay with a wallet",
  savedForBalance: "A wallet you pay the deposit with is saved for the balance, as the card would be.",
  failed: "The wallet payment could not be completed. Nothing was charged: try again, or pay by card.",
} as const;

export default function WalletElement(props: WalletPayProps) {
  const stripe = useStripe();
  const { amountCents, saveForBalance } = props;
  const options = useMemo<StripeElementsOptionsMode>(
    () => ({
      mode: "payment",
      amount: amountCents,
      currency: "usd",
      paymentMethodTypes: ["card"],
      ...(saveForBalance ? { setupFutureUsage: "off_session" as const } : {}),
    }),
    [amountCents, saveForBalance],
  );
  // No PaymentIntent asks for $0 (a free registration has its own form).
  if (!stripe || amountCents <= 0) return null;
  return (
    <Elements stripe={stripe} options={options}>
      <Wallets {...props} />
    </Elements>
  );
}

function sheetOf(event: StripeExpressCheckoutElementConfirmEvent): WalletSheet {
  const billing = event.billingDetails;
  const ship = event.shippingAddress;
  return {
    name: billing?.name ?? ship?.name ?? "",
    email: billing?.email ?? "",
    phone: billing?.phone ?? "",
    shipping: ship
      ? { name: ship.name, line1: ship.address.line1, line2: ship.address.line2 ?? "", city: ship.address.city, state: ship.address.state, zip: ship.address.postal_code, country: ship.address.country }
      : null,
  };
}

function Wallets({ shop, returnUrl, disabled, onStart, onCancel, prepare, onResult, saveForBalance }: WalletPayProps) {
  const stripe = useStripe();
  const elements = useElements();
  /** 'none': Stripe offers no wallet on this device or browser; the card form stands alone. */
  const [shown, setShown] = useState<"loading" | "shown" | "none">("loading");

  function click(event: StripeExpressCheckoutElementClickEvent) {
    if (disabled) return event.reject();
    onStart();
    event.resolve(
      shop
        ? {
            emailRequired: true,
            phoneNumberRequired: true,
            shippingAddressRequired: true,
            allowedShippingCountries: ["US"],
            shippingRates: [{ id: "standard", displayName: shop.shippingLabel, amount: shop.shippingCents }],
            lineItems: [{ name: "Subtotal", amount: shop.subtotalCents }],
          }
        : {},
    );
  }

  async function confirm(event: StripeExpressCheckoutElementConfirmEvent) {
    if (!stripe || !elements) {
      event.paymentFailed({ reason: "fail" });
      return onResult({ kind: "declined", message: WALLET_TEXT.failed });
    }
    try {
      const submitted = await elements.submit();
      if (submitted.error) {
        event.paymentFailed({ reason: "fail" });
        return onResult({ kind: "declined", message: submitted.error.message ?? WALLET_TEXT.failed });
      }
      const intent = await prepare(sheetOf(event));
      if (!intent) {
        event.paymentFailed({ reason: "fail" });
        return onCancel();
      }
      onResult(await confirmWallet(stripe, elements, intent.clientSecret, new URL(returnUrl, window.location.href).href, WALLET_TEXT.failed, intent.amountCents));
    } catch {
      onResult({ kind: "declined", message: WALLET_TEXT.failed });
    }
  }

  if (shown === "none") return null;
  return (
    <div className={shown === "shown" ? "wallet-pay" : "wallet-pay wallet-pay-loading"} data-testid="wallet-pay" role="group" aria-label={WALLET_TEXT.label}>
      <ExpressCheckoutElement
        options={{ paymentMethods: { link: "never", paypal: "never", amazonPay: "never", klarna: "never" }, buttonHeight: 48 }}
        onReady={(e) => setShown(e.availablePaymentMethods ? "shown" : "none")}
        onClick={click}
        onConfirm={(e) => void confirm(e)}
        onCancel={onCancel}
      />
      {shown === "shown" && saveForBalance ? <p className="muted field-hint">{WALLET_TEXT.savedForBalance}</p> : null}
      {shown === "shown" ? <p className="wallet-or"><span>{WALLET_TEXT.or}</span></p> : null}
    </div>
  );
}
