/** The words of a paid registration's changes that cost money (an upgrade, athletes added to a team). Browser-safe. */
import { formatPrice } from "../money.ts";

export const CHANGE_TEXT = {
  pendingElsewhere: "A change to this registration is waiting for its payment. Pay it or cancel it first (its page is linked from this registration's page), then try again.",
  notDearer: "Please choose a package that costs more than the one you have.",
  withCode: "A registration paid with a discount code changes package through us: please write to us.",
  noAthletes: "Please add at least one athlete with every field filled in.",
  teamFull: (max: number) => `A team can have at most ${max} athletes. Please register the rest as a second team.`,
  notEnoughPlaces: (left: number, adding: number) =>
    left === 0
      ? "Every place at this event is taken or held, so no athlete can be added. Please contact us."
      : `Only ${left} ${left === 1 ? "place is" : "places are"} left at this event, not enough for ${adding} more ${adding === 1 ? "athlete" : "athletes"}. Please add fewer.`,
  payTitle: (kind: "upgrade" | "add_athletes") => (kind === "upgrade" ? "Pay for the new package" : "Pay for the added athletes"),
  heldUntil: (until: string) => `This change waits for your payment until ${until}; after that it lapses and nothing changes.`,
  placesHeldUntil: (until: string) => `The new athletes' places are held for you until ${until}; after that they are freed and nothing changes.`,
  needsJavaScript: "Card payment needs JavaScript. Please turn JavaScript on in your browser to pay by card; nothing changes until you pay.",
  paid: "Payment received: your registration is changed. We've e-mailed the details.",
  processing: "Your bank is still confirming this payment. We'll e-mail you when it is confirmed.",
  /** The balance's card choice: the card saved with the deposit first, a new card second. */
  /** The saved card's one-tap button ("Pay $224.00 with Visa •••• 4242"); "Use another card" beside it. */
  payWith: (amount: string) => `Pay ${amount} with`,
  anotherCard: "Use another card",
  savedCardInstead: "Pay with the saved card instead",
  rejected: "This change could no longer be made when the payment arrived (the registration had changed). Your payment is being refunded in full.",
  lapsed: "This change was not paid in time and has lapsed: nothing changed. You can start it again.",
  cancelled: "This change was canceled: nothing changed.",
  cancelDone: "The change is canceled; nothing was charged.",
  cancelTooLate: "This change's payment has already gone through, so it can no longer be canceled.",
  notYours: "This payment does not belong to this change.",
  review: "This payment is being reviewed by our team; we'll be in touch.",
  pendingHeading: "A change waiting for its payment",
  pendingUpgrade: (packageLabel: string) => `Change to ${packageLabel}`,
  pendingAthletes: (names: string[]) => `Add ${names.length === 1 ? "1 athlete" : `${names.length} athletes`} (${names.join(", ")})`,
  pendingLine: (what: string, amount: string, review: boolean) =>
    review ? `${what}, ${amount}: its payment is being reviewed by our team.` : `${what}, ${amount}: waiting for its payment.`,
  pendingBlocks: "Until it is paid, canceled or lapses, nothing else on this registration can change.",
  pendingLink: "See it, pay it or cancel it",
  upgradeButton: "Continue to Payment",
  addButton: "Continue to Payment",
} as const;

/** "Visa ending 4242 (expires 12/2034)" (the saved card as the server names it): its brand and last four digits. */
export function savedCardParts(text: string): { brand: string; last4: string } | null {
  const m = /^(.+?) ending (\d{4})\b/.exec(text);
  return m ? { brand: m[1]!, last4: m[2]! } : null;
}

/** The line the e-mail and the page use for what a change did. */
export const changeSummary = (what: string, cents: number) => `${what}, ${formatPrice(cents)} paid`;

/** What the manage page says after a change of details or days (or why it did not take). */
export const MANAGE_TEXT = {
  stale: "This registration was changed in another window or tab. Here it is as it stands now; please make your change again.",
  deadlinePassed: "The deadline for changes passed while you were editing. Here is what can still change.",
  nothingChanged: "Nothing was changed.",
  changed: "Your changes are saved. We've e-mailed a copy to the registration's contact.",
} as const;
