/**
 * Stripe's test cards, as the offline fake follows them (browser-safe: the fake Stripe.js uses it too).
 * https://docs.stripe.com/testing lists the same numbers and messages.
 */
export interface CardDecline {
  code: string;
  declineCode?: string;
  message: string;
}

const DECLINES: Record<string, CardDecline> = {
  "4000000000000002": { code: "card_declined", declineCode: "generic_decline", message: "Your card was declined." },
  "4000000000009995": { code: "card_declined", declineCode: "insufficient_funds", message: "Your card has insufficient funds." },
  "4000000000009987": { code: "card_declined", declineCode: "lost_card", message: "Your card was declined." },
  "4000000000000069": { code: "expired_card", message: "Your card has expired." },
  "4000000000000127": { code: "incorrect_cvc", message: "Your card's security code is incorrect." },
  "4000000000000119": { code: "processing_error", message: "An error occurred while processing your card. Try again in a little bit." },
  // Attaching this card to a customer succeeds; every charge of it is declined (https://docs.stripe.com/testing).
  "4000000000000341": { code: "card_declined", declineCode: "generic_decline", message: "Your card was declined." },
};

/** Cards a SetupIntent saves although their charges decline: no money is taken when a card is set up. */
const SET_UP_THEN_DECLINE = new Set(["4000000000000341", "4000000000009995"]);

/**
 * Cards that ask for 3-D Secure (https://docs.stripe.com/testing#authentication-and-setup): 4000 0025 0000 3155
 * unless it was set up for off-session use (then later charges succeed without the customer), 4000 0027 6000 3184
 * and 4000 0000 0000 3220 always (on session: the challenge; off session: declined authentication_required).
 * The payment succeeds once the challenge is completed.
 */
const AUTHENTICATE: Record<string, "always" | "unless_set_up"> = { "4000002500003155": "unless_set_up", "4000002760003184": "always", "4000000000003220": "always" };

const SUCCEEDS = new Set([...Object.keys(AUTHENTICATE), "4242424242424242", "4000000000007726", "4000000000005126", "4000056655665556", "5555555555554444", "2223003122003222", "5200828282828210", "378282246310005", "6011111111111117"]);

export function requiresAuthentication(number: string): boolean {
  return authenticationOf(number) !== "none";
}

export function authenticationOf(number: string): "always" | "unless_set_up" | "none" {
  return AUTHENTICATE[digitsOnly(number)] ?? "none";
}

/** What saving this card with a SetupIntent does: null = saved, else the refusal. */
export function setupOutcome(number: string): CardDecline | null {
  return SET_UP_THEN_DECLINE.has(digitsOnly(number)) ? null : testCardOutcome(number);
}

/** Stripe's test PaymentMethod ids for server-side tests (https://docs.stripe.com/testing), with their card. */
const TEST_PAYMENT_METHODS: Record<string, string> = {
  pm_card_visa: "4242424242424242",
  pm_card_authenticationRequired: "4000002760003184",
  pm_card_authenticationRequiredOnSetup: "4000002500003155",
  pm_card_chargeCustomerFail: "4000000000000341",
  pm_card_chargeDeclinedInsufficientFunds: "4000000000009995",
};

export function testPaymentMethodCard(id: string): string | undefined {
  return Object.hasOwn(TEST_PAYMENT_METHODS, id) ? TEST_PAYMENT_METHODS[id] : undefined;
}

export function digitsOnly(value: string): string {
  return value.replace(/\D/g, "");
}

export function luhnValid(number: string): boolean {
  const digits = digitsOnly(number);
  if (digits.length < 12) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function cardBrand(number: string): string {
  const d = digitsOnly(number);
  if (/^4/.test(d)) return "visa";
  if (/^(5[1-5]|2[2-7])/.test(d)) return "mastercard";
  if (/^3[47]/.test(d)) return "amex";
  if (/^6(011|5)/.test(d)) return "discover";
  return "unknown";
}

export function expectedLength(number: string): number {
  return cardBrand(number) === "amex" ? 15 : 16;
}

/** What charging this card does in test mode: null = succeeds, else the decline Stripe answers with. */
export function testCardOutcome(number: string): CardDecline | null {
  const d = digitsOnly(number);
  if (!luhnValid(d)) return { code: "incorrect_number", message: "Your card number is incorrect." };
  if (SUCCEEDS.has(d)) return null;
  return (
    DECLINES[d] ?? {
      code: "card_declined",
      declineCode: "test_mode_live_card",
      message:
        "Your card was declined. Your request was in test mode, but used a non test card. For a list of valid test cards, visit: https://stripe.com/docs/testing.",
    }
  );
}
