/**
 * The offline test mode's Express Checkout Element (part of the fake Stripe.js, fakeStripeJs.ts): a "Test wallet"
 * button standing for Apple Pay and Google Pay, with the events Stripe documents
 * (https://docs.stripe.com/js/elements_object/express_checkout_element_events): `ready` (with the wallets
 * available), `click` (the page must `resolve` within a second, with what the sheet asks for), then its sheet, and
 * `confirm` (the contact and shipping address approved) or `cancel`. The page then calls `stripe.confirmPayment` with
 * the Elements, which pays with the test wallet card chosen beside the button.
 */
import { FakeEmitter } from "./fakeEmitter.ts";

/** The card inside the test wallet: as with a real wallet, what the bank answers is the card's. */
export const TEST_WALLET_CARDS = {
  success: { number: "4242424242424242", label: "Succeeds (Visa 4242)", sheet: "Visa 4242, which succeeds" },
  decline: { number: "4000000000000002", label: "Declined (4000 0000 0000 0002)", sheet: "4000 0000 0000 0002, which is declined" },
  three_d_secure: { number: "4000002500003155", label: "3-D Secure (4000 0025 0000 3155)", sheet: "4000 0025 0000 3155, which asks for 3-D Secure" },
} as const;
export type TestWalletCard = keyof typeof TEST_WALLET_CARDS;

/** The contact and the address the test wallet holds (the e-mail can be changed in its sheet). */
export const TEST_WALLET_HOLDER = {
  name: "Jordan Wallet",
  email: "wallet.holder@example.com",
  phone: "+12055550142",
  address: { line1: "400 Wallet Way", line2: null, city: "Birmingham", state: "AL", postal_code: "35203", country: "US" },
} as const;

/** What the wallet's confirm gives to stripe.confirmPayment through the Elements group. */
export interface ApprovedWallet {
  card: string;
  billing: { name: string; email: string; phone: string };
}

/** The Elements group as the wallet element sees it: its options (amount, currency, setupFutureUsage). */
export interface WalletGroup {
  options: Record<string, unknown>;
  approve(wallet: ApprovedWallet): void;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string>, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

let uid = 0;
const money = (cents: number, currency: string) => `${currency.toLowerCase() === "usd" ? "$" : `${currency.toUpperCase()} `}${(cents / 100).toFixed(2)}`;

interface SheetAsks {
  emailRequired?: boolean;
  phoneNumberRequired?: boolean;
  shippingAddressRequired?: boolean;
  shippingRates?: { id: string; displayName: string; amount: number }[];
  lineItems?: { name: string; amount: number }[];
}

/** The wallet's payment sheet: what is paid, where it ships; Pay or Cancel. Resolves with the e-mail, or null. */
function showSheet(amount: number, currency: string, asks: SheetAsks, card: TestWalletCard): Promise<{ email: string } | null> {
  return new Promise((resolve) => {
    const id = `offline-wallet-${++uid}`;
    const rows: [string, string][] = [...(asks.lineItems ?? []).map((l): [string, string] => [l.name, money(l.amount, currency)])];
    const rate = asks.shippingRates?.[0];
    if (asks.shippingAddressRequired && rate) rows.push([`Shipping (${rate.displayName})`, rate.amount === 0 ? "Free" : money(rate.amount, currency)]);
    rows.push(["Total", money(amount, currency)]);
    const a = TEST_WALLET_HOLDER.address;
    const email = el("input", { id: `${id}-email`, type: "email", value: TEST_WALLET_HOLDER.email, autocomplete: "off" });
    const pay = el("button", { type: "button", "data-offline-wallet": "pay" }, `Pay ${money(amount, currency)}`);
    const cancel = el("button", { type: "button", "data-offline-wallet": "cancel" }, "Cancel");
    const dialog = el(
      "dialog",
      { "aria-labelledby": `${id}-title`, "data-offline-stripe": "wallet-sheet", class: "offline-3ds offline-wallet-sheet" },
      el("h2", { id: `${id}-title` }, "Test wallet"),
      el("p", {}, `Offline test mode: this pays with the test card ${TEST_WALLET_CARDS[card].sheet}. No wallet or bank is asked.`),
      el("dl", { class: "summary-rows" }, ...rows.map(([k, v]) => el("div", {}, el("dt", {}, k), el("dd", {}, v)))),
      ...(asks.shippingAddressRequired ? [el("p", { "data-offline-wallet": "ship-to" }, `Ship to ${TEST_WALLET_HOLDER.name}, ${a.line1}, ${a.city}, ${a.state} ${a.postal_code}`)] : []),
      ...(asks.emailRequired ? [el("p", {}, el("label", { for: `${id}-email` }, "E-mail "), email)] : []),
      el("p", {}, pay, " ", cancel),
    );
    const done = (approved: boolean) => {
      dialog.close();
      dialog.remove();
      resolve(approved ? { email: email.value.trim() } : null);
    };
    pay.addEventListener("click", () => done(true));
    cancel.addEventListener("click", () => done(false));
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      done(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    pay.focus();
  });
}

export class FakeExpressCheckoutElement extends FakeEmitter {
  readonly elementType = "expressCheckout";
  private choice: HTMLSelectElement | null = null;

  constructor(
    private readonly group: WalletGroup,
    private options: Record<string, unknown> = {},
  ) {
    super();
  }

  mount(target: HTMLElement | string): void {
    const node = this.mountNode(target);
    const id = `offline-wallet-card-${++uid}`;
    const button = el("button", { type: "button", class: "offline-wallet-button", "data-offline-wallet": "open" }, "Test wallet");
    const choice = el("select", { id, "data-offline-wallet": "card" }, ...Object.entries(TEST_WALLET_CARDS).map(([value, c]) => el("option", { value }, c.label)));
    this.choice = choice;
    button.addEventListener("click", () => void this.open());
    this.root = el("div", { class: "offline-wallet", "data-offline-stripe": "express-checkout" }, button, el("label", { for: id, class: "offline-wallet-card" }, "Test wallet card ", choice));
    node.append(this.root);
    // Stripe names the wallets it shows; the test wallet stands for the card wallets (Apple Pay, Google Pay).
    const availablePaymentMethods = { applePay: false, googlePay: true, link: false, paypal: false, amazonPay: false, klarna: false };
    setTimeout(() => this.emit("ready", { elementType: "expressCheckout", availablePaymentMethods }), 0);
  }

  /** The button: `click` (resolved within a second, as Stripe requires), the sheet, then `confirm` or `cancel`. */
  private async open(): Promise<void> {
    const card = (this.choice?.value ?? "success") as TestWalletCard;
    let asks: SheetAsks = { ...(this.options as SheetAsks) };
    if (this.handlers.get("click")?.size) {
      const answer = await new Promise<SheetAsks | null>((resolve) => {
        const late = setTimeout(() => {
          console.error("Express Checkout Element: the click event was not resolved within 1 second.");
          resolve(null);
        }, 1_000);
        this.emit("click", {
          elementType: "expressCheckout",
          expressPaymentType: "google_pay",
          resolve: (details?: SheetAsks) => {
            clearTimeout(late);
            resolve({ ...asks, ...(details ?? {}) });
          },
          reject: () => {
            clearTimeout(late);
            resolve(null);
          },
        });
      });
      if (!answer) return;
      asks = answer;
    }
    const amount = Number(this.group.options.amount ?? 0);
    const currency = typeof this.group.options.currency === "string" ? this.group.options.currency : "usd";
    const approved = await showSheet(amount, currency, asks, card);
    if (!approved) {
      this.emit("cancel", { elementType: "expressCheckout" });
      return;
    }
    const h = TEST_WALLET_HOLDER;
    const billing = { name: h.name, email: approved.email, phone: h.phone };
    this.group.approve({ card: TEST_WALLET_CARDS[card].number, billing });
    const rate = asks.shippingRates?.[0];
    this.emit("confirm", {
      elementType: "expressCheckout",
      expressPaymentType: "google_pay",
      billingDetails: { ...billing, address: h.address },
      ...(asks.shippingAddressRequired ? { shippingAddress: { name: h.name, address: h.address }, ...(rate ? { shippingRate: rate } : {}) } : {}),
      // After the sheet has closed the fake has nowhere to show it: the page says what failed.
      paymentFailed: () => {},
    });
  }

  update(options: Record<string, unknown>): void {
    this.options = { ...this.options, ...options };
  }
  focus(): void {}
  blur(): void {}
}
