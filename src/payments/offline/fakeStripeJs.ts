/**
 * The offline test mode's Stripe.js (browser script, loaded as a classic script before the widgets).
 * It exposes `window.Stripe(pk)` with `elements(options)`, a card element made of real labelled inputs that
 * follows Stripe's test cards, an Express Checkout Element with a "Test wallet" (fakeExpressCheckout.ts) and
 * `confirmPayment` for it, `confirmCardPayment` (a typed card, or a saved payment method's id), and for saving a
 * card with a SetupIntent `confirmCardSetup` and `confirmSetup({ elements, clientSecret })`, so
 * @stripe/react-stripe-js works unchanged.
 * Its API calls go to the app's /__offline-stripe pass-through, which forwards them to the in-process fake.
 */
import { cardBrand, digitsOnly, expectedLength, luhnValid } from "./testCards.ts";
import { toText } from "../../shared/toText.ts";
import { FakeExpressCheckoutElement, type ApprovedWallet, type WalletGroup } from "./fakeExpressCheckout.ts";
import { FakeEmitter } from "./fakeEmitter.ts";

interface FieldError {
  type: "validation_error";
  code: string;
  message: string;
}

const API = "/__offline-stripe/v1";

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string>, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

let uid = 0;

class FakeCardElement extends FakeEmitter {
  readonly elementType = "card";
  private inputs: { number: HTMLInputElement; expiry: HTMLInputElement; cvc: HTMLInputElement; postal: HTMLInputElement | null } | null = null;
  private options: Record<string, unknown>;

  constructor(options: Record<string, unknown> = {}) {
    super();
    this.options = options;
  }

  mount(target: HTMLElement | string): void {
    const node = this.mountNode(target);
    const id = `offline-card-${++uid}`;
    const input = (name: string, label: string, attrs: Record<string, string>) => {
      const i = el("input", { id: `${id}-${name}`, name: `offline-card-${name}`, type: "text", inputmode: "numeric", "aria-label": label, autocomplete: "off", ...attrs });
      i.addEventListener("input", () => this.onInput(name));
      i.addEventListener("focus", () => this.emit("focus", { elementType: "card" }));
      i.addEventListener("blur", () => {
        this.emit("blur", { elementType: "card" });
        this.emitChange(true);
      });
      return i;
    };
    const number = input("number", "Card number", { placeholder: "1234 1234 1234 1234", autocomplete: "cc-number", maxlength: "19" });
    const expiry = input("expiry", "Expiration date MM / YY", { placeholder: "MM / YY", autocomplete: "cc-exp", maxlength: "7" });
    const cvc = input("cvc", "Security code (CVC)", { placeholder: "CVC", autocomplete: "cc-csc", maxlength: "4" });
    const postal = this.options.hidePostalCode ? null : input("postal", "ZIP code", { placeholder: "ZIP", autocomplete: "postal-code", maxlength: "10" });
    this.inputs = { number, expiry, cvc, postal };
    this.root = el("div", { class: "offline-card-field", "data-offline-stripe": "card" }, number, expiry, cvc, ...(postal ? [postal] : []));
    node.append(this.root);
    if (this.options.disabled) this.setDisabled(true);
    setTimeout(() => this.emit("ready", { elementType: "card" }), 0);
  }

  private onInput(name: string): void {
    const i = this.inputs!;
    if (name === "number") {
      const d = digitsOnly(i.number.value).slice(0, expectedLength(i.number.value));
      i.number.value = d.replace(/(\d{4})(?=\d)/g, "$1 ");
    } else if (name === "expiry") {
      const d = digitsOnly(i.expiry.value).slice(0, 4);
      i.expiry.value = d.length > 2 ? `${d.slice(0, 2)} / ${d.slice(2)}` : d;
    } else if (name === "cvc") {
      i.cvc.value = digitsOnly(i.cvc.value).slice(0, 4);
    }
    this.emitChange(false);
  }

  /** The first problem with what was typed, as Stripe words it (incomplete fields only count once left or submitted). */
  validation(final: boolean): { complete: boolean; empty: boolean; error: FieldError | undefined } {
    const i = this.inputs;
    if (!i) return { complete: false, empty: true, error: undefined };
    const number = digitsOnly(i.number.value);
    const exp = digitsOnly(i.expiry.value);
    const cvc = digitsOnly(i.cvc.value);
    const postal = i.postal?.value.trim() ?? "";
    const empty = !number && !exp && !cvc && !postal;
    const err = (code: string, message: string): FieldError => ({ type: "validation_error", code, message });
    let error: FieldError | undefined;
    const len = expectedLength(number);
    if (number.length === len && !luhnValid(number)) error = err("invalid_number", "Your card number is invalid.");
    else if (number.length < len && final) error = err("incomplete_number", "Your card number is incomplete.");
    if (!error && exp.length === 4) {
      const month = Number(exp.slice(0, 2));
      const year = 2000 + Number(exp.slice(2));
      const now = new Date();
      if (month < 1 || month > 12) error = err("invalid_expiry_month", "Your card's expiration date is incomplete.");
      else if (year < now.getFullYear()) error = err("invalid_expiry_year_past", "Your card's expiration year is in the past.");
      else if (year === now.getFullYear() && month < now.getMonth() + 1) error = err("invalid_expiry_month_past", "Your card's expiration date is in the past.");
    } else if (!error && final) error = err("incomplete_expiry", "Your card's expiration date is incomplete.");
    const cvcLen = cardBrand(number) === "amex" ? 4 : 3;
    if (!error && cvc.length < cvcLen && final) error = err("incomplete_cvc", "Your card's security code is incomplete.");
    if (!error && i.postal && postal.length < 5 && final) error = err("incomplete_zip", "Your postal code is incomplete.");
    const complete = number.length === len && luhnValid(number) && exp.length === 4 && cvc.length >= cvcLen && (!i.postal || postal.length >= 5) && !error;
    return { complete, empty, error: final && empty ? undefined : error };
  }

  private emitChange(final: boolean): void {
    const v = this.validation(final);
    this.emit("change", { elementType: "card", empty: v.empty, complete: v.complete, error: v.error, brand: cardBrand(this.inputs?.number.value ?? ""), value: { postalCode: this.inputs?.postal?.value ?? "" } });
  }

  cardData(): Record<string, string> {
    const i = this.inputs!;
    const exp = digitsOnly(i.expiry.value);
    return {
      number: digitsOnly(i.number.value),
      exp_month: exp.slice(0, 2),
      exp_year: `20${exp.slice(2)}`,
      cvc: digitsOnly(i.cvc.value),
      ...(i.postal ? { postal_code: i.postal.value.trim() } : {}),
    };
  }

  private setDisabled(disabled: boolean): void {
    for (const i of Object.values(this.inputs ?? {})) if (i) i.disabled = disabled;
  }
  update(options: Record<string, unknown>): void {
    this.options = { ...this.options, ...options };
    if ("disabled" in options) this.setDisabled(Boolean(options.disabled));
  }
  focus(): void {
    this.inputs?.number.focus();
  }
  blur(): void {
    (document.activeElement as HTMLElement | null)?.blur();
  }
  clear(): void {
    for (const i of Object.values(this.inputs ?? {})) if (i) i.value = "";
    this.emitChange(false);
  }
}

class FakeElements implements WalletGroup {
  private elements = new Map<string, FakeCardElement | FakeExpressCheckoutElement>();
  private approved: ApprovedWallet | null = null;
  constructor(public options: Record<string, unknown> = {}) {}
  create(type: string, options?: Record<string, unknown>): FakeCardElement | FakeExpressCheckoutElement {
    if (type !== "card" && type !== "expressCheckout") throw new Error(`The offline Stripe test mode only provides the 'card' and 'expressCheckout' Elements, not '${type}'.`);
    // Like Stripe.js: a second Element of a type only while the first one is alive (a destroyed one can be replaced).
    if (this.elements.get(type)?.alive) throw new Error(`Can only create one Element of type ${type}.`);
    if (type === "expressCheckout" && this.options.mode !== "payment" && this.options.mode !== "setup" && !this.options.clientSecret) {
      throw new Error("In order to create an expressCheckout element, you must pass a clientSecret or mode when creating the Elements group.");
    }
    const element = type === "card" ? new FakeCardElement(options) : new FakeExpressCheckoutElement(this, options);
    this.elements.set(type, element);
    return element;
  }
  getElement(type: string | { __elementType?: string }): FakeCardElement | FakeExpressCheckoutElement | null {
    const name = typeof type === "string" ? type : type?.__elementType;
    const element = name ? this.elements.get(name) : undefined;
    return element?.alive ? element : null;
  }
  update(options: Record<string, unknown> = {}): void {
    this.options = { ...this.options, ...options };
  }
  fetchUpdates(): Promise<{ error?: undefined }> {
    return Promise.resolve({});
  }
  /** Called by the wallet's confirm handler before confirmPayment (nothing to collect in the fake). */
  submit(): Promise<{ error?: undefined }> {
    return Promise.resolve({});
  }
  approve(wallet: ApprovedWallet): void {
    this.approved = wallet;
  }
  /** The wallet approved in this group's sheet, once: a second confirmPayment needs the sheet again. */
  takeApproved(): ApprovedWallet | null {
    const wallet = this.approved;
    this.approved = null;
    return wallet;
  }
}

function form(data: Record<string, unknown>, prefix = "", out = new URLSearchParams()): URLSearchParams {
  for (const [k, v] of Object.entries(data)) {
    if (v === undefined || v === null || v === "") continue;
    const key = prefix ? `${prefix}[${k}]` : k;
    if (typeof v === "object") form(v as Record<string, unknown>, key, out);
    else out.append(key, toText(v));
  }
  return out;
}

const intentIdOf = (clientSecret: string) => clientSecret.split("_secret_")[0] ?? "";

/**
 * The fake's 3-D Secure challenge, as Stripe.js shows the bank's page in a modal for a card that asks for it
 * (https://docs.stripe.com/payments/3d-secure): the customer completes or fails it. Resolves with the choice.
 */
function showChallenge(amount: number, currency: string, question?: string): Promise<"complete" | "fail"> {
  return new Promise((resolve) => {
    const id = `offline-3ds-${++uid}`;
    const complete = el("button", { type: "button", "data-offline-3ds": "complete" }, "Complete authentication");
    const failButton = el("button", { type: "button", "data-offline-3ds": "fail" }, "Fail authentication");
    const dialog = el(
      "dialog",
      { "aria-labelledby": `${id}-title`, "data-offline-stripe": "challenge", class: "offline-3ds" },
      el("h2", { id: `${id}-title` }, "3D Secure test page"),
      el("p", {}, `${question ?? `Your bank asks you to confirm this payment of ${(amount / 100).toFixed(2)} ${currency.toUpperCase()}.`} (Offline test mode: no bank is asked.)`),
      el("p", {}, complete, " ", failButton),
    );
    const done = (outcome: "complete" | "fail") => {
      dialog.close();
      dialog.remove();
      resolve(outcome);
    };
    complete.addEventListener("click", () => done("complete"));
    failButton.addEventListener("click", () => done("fail"));
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      done("fail");
    });
    document.body.append(dialog);
    dialog.showModal();
    complete.focus();
  });
}

const connectionError = { type: "api_connection_error", message: "We are experiencing issues connecting to our payments provider. Please check your internet connection." };

class FakeStripe {
  constructor(readonly publishableKey: string) {}

  elements(options?: Record<string, unknown>): FakeElements {
    return new FakeElements(options);
  }

  private async post(path: string, fields: Record<string, unknown>): Promise<{ paymentIntent?: Record<string, unknown>; error?: Record<string, unknown> }> {
    const { object, error } = await this.postObject(path, fields);
    return error ? { error } : { paymentIntent: object };
  }

  private async postObject(path: string, fields: Record<string, unknown>): Promise<{ object?: Record<string, unknown>; error?: Record<string, unknown> }> {
    try {
      const res = await fetch(`${API}${path}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form({ key: this.publishableKey, ...fields }) });
      const json = (await res.json()) as { error?: Record<string, unknown> } & Record<string, unknown>;
      if (!res.ok) return { error: json.error ?? { type: "api_error", message: "An unexpected error occurred." } };
      return { object: json };
    } catch {
      return { error: connectionError };
    }
  }

  /**
   * Like Stripe.js: an intent that requires_action gets its challenge here (unless `handleActions: false`); the
   * answer is the intent afterwards (succeeded or processing), or the authentication error with the intent.
   */
  private async handleNextAction(clientSecret: string, result: { paymentIntent?: Record<string, unknown>; error?: Record<string, unknown> }) {
    const pi = result.paymentIntent;
    if (!pi || pi.status !== "requires_action") return result;
    const outcome = await showChallenge(Number(pi.amount), String(pi.currency));
    const after = await this.post(`/payment_intents/${encodeURIComponent(intentIdOf(clientSecret))}/challenge`, { client_secret: clientSecret, outcome });
    const now = after.paymentIntent;
    if (now && now.status === "requires_payment_method" && now.last_payment_error) {
      return { error: { ...(now.last_payment_error as Record<string, unknown>), payment_intent: now } };
    }
    return after;
  }

  async handleCardAction(clientSecret: string) {
    const current = await this.retrievePaymentIntent(clientSecret);
    return current.error ? current : this.handleNextAction(clientSecret, current as { paymentIntent?: Record<string, unknown> });
  }

  async confirmCardPayment(clientSecret: string, data: { payment_method?: string | { card?: unknown; billing_details?: Record<string, unknown> }; return_url?: string } = {}, options: { handleActions?: boolean } = {}) {
    if (typeof data.payment_method === "string") {
      // A card saved on the customer, paid on session (3-D Secure when the bank asks for it).
      const confirmed = await this.post(`/payment_intents/${encodeURIComponent(intentIdOf(clientSecret))}/confirm`, { client_secret: clientSecret, payment_method: data.payment_method });
      return options.handleActions === false ? confirmed : this.handleNextAction(clientSecret, confirmed);
    }
    const card = data.payment_method?.card as FakeCardElement | undefined;
    if (!(card instanceof FakeCardElement)) {
      return { error: { type: "invalid_request_error", message: "A card Element is required to confirm this payment." } };
    }
    const v = card.validation(true);
    if (v.error || !v.complete) return { error: v.error ?? { type: "validation_error", code: "incomplete_number", message: "Your card number is incomplete." } };
    const { postal_code, ...cardFields } = card.cardData();
    const confirmed = await this.post(`/payment_intents/${encodeURIComponent(intentIdOf(clientSecret))}/confirm`, {
      client_secret: clientSecret,
      payment_method_data: {
        type: "card",
        card: cardFields,
        billing_details: { ...(data.payment_method?.billing_details ?? {}), address: postal_code ? { postal_code } : undefined },
      },
    });
    if (options.handleActions === false) return confirmed;
    return this.handleNextAction(clientSecret, confirmed);
  }

  /**
   * Like Stripe.js's confirmPayment with the Elements of an Express Checkout Element (deferred intent): pays the
   * PaymentIntent with the card of the wallet approved in the sheet; 3-D Secure when the card asks for it; never a
   * redirect (a card wallet). As Stripe does, it refuses Elements whose setupFutureUsage is not the PaymentIntent's
   * setup_future_usage (https://docs.stripe.com/payments/accept-a-payment-deferred).
   */
  async confirmPayment(options: { elements: FakeElements; clientSecret?: string; confirmParams?: { return_url?: string }; redirect?: string }) {
    const wallet = options.elements instanceof FakeElements ? options.elements.takeApproved() : null;
    if (!wallet) return { error: { type: "invalid_request_error", message: "The offline test mode confirms a payment with a wallet approved in the Express Checkout Element only." } };
    const clientSecret = options.clientSecret;
    if (!clientSecret) return { error: { type: "invalid_request_error", message: "Missing value for confirmPayment: clientSecret should be a string." } };
    if (options.redirect !== "if_required" && !options.confirmParams?.return_url) return { error: { type: "invalid_request_error", message: "Missing value for confirmPayment: confirmParams.return_url." } };
    const current = await this.retrievePaymentIntent(clientSecret);
    if (current.error) return { error: current.error as Record<string, unknown> };
    const intentUsage = (current.paymentIntent as { setup_future_usage?: string | null }).setup_future_usage ?? null;
    const elementsUsage = (options.elements.options.setupFutureUsage as string | null | undefined) ?? null;
    if (intentUsage !== elementsUsage) {
      return { error: { type: "invalid_request_error", message: `The PaymentIntent's setup_future_usage (${String(intentUsage)}) does not match the setupFutureUsage of the Elements (${String(elementsUsage)}).` } };
    }
    const confirmed = await this.post(`/payment_intents/${encodeURIComponent(intentIdOf(clientSecret))}/confirm`, {
      client_secret: clientSecret,
      payment_method_data: { type: "card", card: { number: wallet.card, exp_month: "12", exp_year: "2034", cvc: "123" }, billing_details: wallet.billing },
    });
    return this.handleNextAction(clientSecret, confirmed);
  }

  /** Like Stripe.js's confirmCardSetup: saves the typed card with a SetupIntent (3-D Secure when the card asks for it). */
  async confirmCardSetup(clientSecret: string, data: { payment_method?: { card?: unknown; billing_details?: Record<string, unknown> } } = {}) {
    const card = data.payment_method?.card;
    if (!(card instanceof FakeCardElement)) return { error: { type: "invalid_request_error", message: "A card Element is required to save a card." } };
    const v = card.validation(true);
    if (v.error || !v.complete) return { error: v.error ?? { type: "validation_error", code: "incomplete_number", message: "Your card number is incomplete." } };
    const { postal_code, ...cardFields } = card.cardData();
    const id = encodeURIComponent(intentIdOf(clientSecret));
    const confirmed = await this.postObject(`/setup_intents/${id}/confirm`, {
      client_secret: clientSecret,
      payment_method_data: { type: "card", card: cardFields, billing_details: { ...(data.payment_method?.billing_details ?? {}), address: postal_code ? { postal_code } : undefined } },
    });
    if (confirmed.error) return { error: confirmed.error };
    let si = confirmed.object!;
    if (si.status === "requires_action") {
      const outcome = await showChallenge(0, "usd", "Your bank asks you to confirm that this card may be saved for later payments.");
      const after = await this.postObject(`/setup_intents/${id}/challenge`, { client_secret: clientSecret, outcome });
      if (after.error) return { error: after.error };
      si = after.object!;
      if (si.status === "requires_payment_method" && si.last_setup_error) return { error: { ...(si.last_setup_error as Record<string, unknown>), setup_intent: si } };
    }
    return { setupIntent: si };
  }

  /** Like Stripe.js's confirmSetup with the Elements it was given: their card Element, no redirect for cards. */
  confirmSetup(options: { elements: FakeElements; clientSecret: string; confirmParams?: { payment_method_data?: { billing_details?: Record<string, unknown> } }; redirect?: string }) {
    const card = options.elements?.getElement("card");
    if (!card) return Promise.resolve({ error: { type: "invalid_request_error", message: "A card Element is required to save a card." } });
    return this.confirmCardSetup(options.clientSecret, { payment_method: { card, billing_details: options.confirmParams?.payment_method_data?.billing_details } });
  }

  async retrieveSetupIntent(clientSecret: string) {
    const qs = new URLSearchParams({ key: this.publishableKey, client_secret: clientSecret });
    const res = await fetch(`${API}/setup_intents/${encodeURIComponent(intentIdOf(clientSecret))}?${qs}`);
    const json = (await res.json()) as { error?: unknown };
    return res.ok ? { setupIntent: json } : { error: json.error };
  }

  async retrievePaymentIntent(clientSecret: string) {
    const qs = new URLSearchParams({ key: this.publishableKey, client_secret: clientSecret });
    const res = await fetch(`${API}/payment_intents/${encodeURIComponent(intentIdOf(clientSecret))}?${qs}`);
    const json = (await res.json()) as { error?: unknown };
    return res.ok ? { paymentIntent: json } : { error: json.error };
  }

  createToken() {
    return Promise.resolve({ error: { type: "invalid_request_error", message: "Tokens are not available in offline test mode." } });
  }
  createPaymentMethod() {
    return Promise.resolve({ error: { type: "invalid_request_error", message: "Payment methods are not available in offline test mode." } });
  }
  registerAppInfo(): void {}
  _registerWrapper(): void {}
}

(() => {
  const factory = (publishableKey: string) => {
    if (typeof publishableKey !== "string" || !publishableKey.startsWith("pk_")) {
      throw new Error("Invalid value for Stripe(): apiKey should be a publishable key.");
    }
    return new FakeStripe(publishableKey);
  };
  (factory as unknown as { version: string }).version = "endive";
  (window as unknown as { Stripe: typeof factory }).Stripe = factory;
})();
