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
};

const SUCCEEDS = new Set(["4242424242424242", "4000000000007726", "4000000000005126", "4000056655665556", "5555555555554444", "2223003122003222", "5200828282828210", "378282246310005", "6011111111111117"]);

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
