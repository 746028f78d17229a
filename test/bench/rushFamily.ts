/**
 * One family of `npm run bench:rush`: a real HTTP client that does what a browser with the widgets does. It
 * opens the registration page (cookies, CSRF token, the form's id), posts the hold the widget posts, confirms the
 * PaymentIntent the way the offline Stripe.js does, reports the payment back, and opens the page it lands on.
 */
import zlib from "node:zlib";
import { request } from "./rushHttp.ts";
import { toText } from "../../src/shared/toText.ts";

export const PUBLIC_URL = "https://rush.example";
export const PAYING_CARD = "4242424242424242";
export const RUSH_CODE = { code: "RUSH10", percent: 10, maxRedemptions: 60 } as const;

export interface FamilyPlan {
  id: number;
  /** The app instance this family is pinned to (as a sticky proxy would). */
  instance: number;
  /** Its own client address, as the proxy forwards it. */
  address: string;
  arriveAtMs: number;
  eventId: number;
  kind: "individual" | "team";
  /** Team size (5 to 12); 1 for an individual. */
  athletes: number;
  /** Which of the event's packages an individual picks (an index into the page's list). */
  packagePick: number;
  ending: "pay" | "abandon";
  doubleSubmit: boolean;
  useCode: boolean;
}

export interface Call {
  step: "page" | "hold" | "checkout" | "confirm" | "return" | "landing";
  status: number;
  /** When it was sent (performance.now() of this process) and how long the answer took. */
  at: number;
  ms: number;
  /** The answer's message for a non-2xx answer (or the network error). */
  message?: string;
}

export interface FamilyResult {
  plan: FamilyPlan;
  calls: Call[];
  /** The form id its registration page gave it (a resubmit of the same form reuses the registration). */
  formSessionId?: string;
  /** What the family's held registration is, from the hold's answer. */
  reference?: string;
  /** What the fake Stripe charged the card (its confirm answer), when it did. */
  charged?: { intentId: string; amountCents: number; reference: string };
  outcome: "paid" | "abandoned" | "sold out" | "refused" | "not confirmed" | "failed";
}

type Json = Record<string, unknown>;

/**
 * What a browser sends and keeps, and no more: its Accept-Encoding (so the site compresses what it would for a
 * browser), its cookies and the CSRF token; kept-alive connections to each origin, as a browser or a sticky proxy
 * keeps them (rushHttp.ts). An answer is decompressed only when the family reads it (the pages it takes the token
 * and the form from, JSON answers, errors), with one call on the whole body; the page it lands on at the end is
 * received and not read. Pages are searched as bytes for what the widgets read; only those parts become text.
 */
const ACCEPT_ENCODING = "gzip, deflate, br";

interface Answer {
  status: number;
  /** The answer's body, decompressed; empty when it was not read. */
  body: Buffer;
}

/** Room for a whole page at once: one output buffer, not pieces joined. */
const INFLATE = { chunkSize: 64 * 1024 };

function decoded(bytes: Buffer, encoding: string | undefined): Buffer {
  if (bytes.length === 0) return bytes;
  if (encoding === "br") return zlib.brotliDecompressSync(bytes, INFLATE);
  if (encoding === "gzip") return zlib.gunzipSync(bytes, INFLATE);
  if (encoding === "deflate") return zlib.inflateSync(bytes, INFLATE);
  return bytes;
}

class Client {
  private cookies = new Map<string, string>();
  /** The header lines every request to the site carries (its cookies included), rebuilt when a cookie changes. */
  private siteHeaders: string;
  private token = "";
  readonly calls: Call[] = [];
  private host: string;
  private port: number;
  private address: string;
  constructor(base: string, address: string) {
    const url = new URL(base);
    this.host = url.hostname;
    this.port = Number(url.port || 80);
    this.address = address;
    this.siteHeaders = this.headerLines();
  }

  private headerLines(): string {
    const cookie = this.cookies.size ? `cookie: ${[...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ")}\r\n` : "";
    return `x-forwarded-for: ${this.address}\r\nx-forwarded-proto: https\r\naccept-encoding: ${ACCEPT_ENCODING}\r\n${cookie}`;
  }

  private keep(setCookie: string[]): void {
    if (setCookie.length === 0) return;
    for (const line of setCookie) {
      const pair = line.slice(0, line.indexOf(";") >>> 0);
      const eq = pair.indexOf("=");
      this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    this.siteHeaders = this.headerLines();
  }

  /** One exchange, recorded as a call; `site`: to the site (its cookies kept), else to Stripe, another origin. */
  private async send(step: Call["step"], origin: { host: string; port: number; site: boolean }, method: string, path: string, headers: string, body: string | undefined, read: boolean): Promise<Answer> {
    const started = performance.now();
    try {
      const res = await request(origin.host, origin.port, method, path, headers, body, read);
      if (origin.site) this.keep(res.setCookie);
      const call: Call = { step, status: res.status, at: started, ms: performance.now() - started };
      // An error's message is read even from a page the family would not read (rushHttp keeps an error's body).
      const text = read || res.status >= 400 ? decoded(res.body, res.contentEncoding) : EMPTY;
      if (res.status >= 400) call.message = messageOf(text.toString());
      this.calls.push(call);
      return { status: res.status, body: text };
    } catch (err) {
      this.calls.push({ step, status: 0, at: started, ms: performance.now() - started, message: (err as Error).cause ? String((err as Error).cause) : (err as Error).message });
      return { status: 0, body: EMPTY };
    }
  }

  private get site() {
    return { host: this.host, port: this.port, site: true };
  }

  /** A page as the browser opens it; `read`: the family reads it (the form's page, the checkout), else it is only received. */
  async page(step: Call["step"], path: string, read = true) {
    const res = await this.send(step, this.site, "GET", path, `${this.siteHeaders}accept: text/html\r\n`, undefined, read);
    if (res.status === 200 && step === "page") this.token = csrfFrom(res.body);
    return res;
  }

  async postJson(step: Call["step"], path: string, body: unknown) {
    const headers = `${this.siteHeaders}accept: application/json\r\ncontent-type: application/json\r\nx-csrf-token: ${this.token}\r\norigin: ${PUBLIC_URL}\r\n`;
    const res = await this.send(step, this.site, "POST", path, headers, JSON.stringify(body), true);
    return { status: res.status, json: parseJson(res.body.toString()) };
  }

  /**
   * Stripe.js's confirmCardPayment: the card goes to Stripe (here the fake Stripe process at `stripeUrl`) with the
   * publishable key and the client secret, without the site's cookies: Stripe is another origin.
   */
  async confirmCard(stripeUrl: string, publishableKey: string, clientSecret: string, card: string, name: string) {
    const intentId = clientSecret.split("_secret_")[0] ?? "";
    const body = new URLSearchParams({
      key: publishableKey,
      client_secret: clientSecret,
      "payment_method_data[type]": "card",
      "payment_method_data[card][number]": card,
      "payment_method_data[card][exp_month]": "12",
      "payment_method_data[card][exp_year]": "2034",
      "payment_method_data[card][cvc]": "123",
      "payment_method_data[billing_details][name]": name,
      "payment_method_data[billing_details][address][postal_code]": "35203",
    });
    const stripe = new URL(stripeUrl);
    const res = await this.send(
      "confirm",
      { host: stripe.hostname, port: Number(stripe.port || 80), site: false },
      "POST",
      `${stripe.pathname.replace(/\/$/, "")}/v1/payment_intents/${encodeURIComponent(intentId)}/confirm`,
      `content-type: application/x-www-form-urlencoded\r\naccept-encoding: ${ACCEPT_ENCODING}\r\n`,
      body.toString(),
      true,
    );
    return { status: res.status, json: parseJson(res.body.toString()) };
  }
}

const EMPTY = Buffer.alloc(0);

/** The text between `start` and the next `end` after it, or undefined. */
function between(page: Buffer, start: string, end: string, from = 0): { text: string; at: number } | undefined {
  const at = page.indexOf(start, from);
  if (at < 0) return undefined;
  const close = page.indexOf(end, at + start.length);
  return close < 0 ? undefined : { text: page.toString("utf8", at + start.length, close), at: close };
}

/** The page's CSRF token (its meta tag), as the widgets read it. */
function csrfFrom(page: Buffer): string {
  return between(page, '<meta name="csrf-token" content="', '"')?.text ?? "";
}

function parseJson(text: string): Json {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === "object" ? (v as Json) : {};
  } catch {
    return {};
  }
}

/** A short message for the report: the JSON answer's error, or the HTML page's title. */
function messageOf(text: string): string {
  const json = parseJson(text);
  const error = json.error;
  const m = typeof json.userFriendlyMessage === "string" ? json.userFriendlyMessage : typeof error === "string" ? error : (error as Json | undefined)?.message;
  if (typeof m === "string") return m.slice(0, 160);
  return (/<title>([^<]*)<\/title>/.exec(text)?.[1] ?? text.slice(0, 80)).trim();
}

/** The props a page gave one of its widgets (inert JSON in the first `*-props` script after the widget's markup). */
function widgetProps(page: Buffer, name: string): Json | undefined {
  let from = page.indexOf(`data-widget="${name}"`);
  if (from < 0) return undefined;
  for (;;) {
    const id = between(page, '<script type="application/json" id="', '">', from);
    if (!id) return undefined;
    if (id.text.endsWith("-props") && !id.text.includes('"')) {
      const end = page.indexOf("</script>", id.at + 2);
      return end < 0 ? undefined : parseJson(page.toString("utf8", id.at + 2, end));
    }
    from = id.at;
  }
}

const person = (id: number, i: number) => ({ first: `Rush${id}`, last: `Family${i}`, email: `family${id}.${i}@example.com` });
const SIZES = ["Small", "Medium", "Large", "XL"];

function individualData(plan: FamilyPlan, props: Json) {
  const packages = (props.packages as { code: string; dayCount: number }[]) ?? [];
  const days = (props.days as unknown[]) ?? [];
  const pkg = packages[plan.packagePick % Math.max(1, packages.length)] ?? { code: "full", dayCount: days.length };
  const p = person(plan.id, 0);
  const dayFields = Object.fromEntries(days.map((_, i) => [`day${i + 1}`, pkg.dayCount < days.length && i < pkg.dayCount ? "on" : undefined]).filter(([, v]) => v));
  return {
    option: pkg.code,
    formSessionId: (props.values as Json | undefined)?.formSessionId,
    registrationData: {
      registrationType: pkg.code,
      eventId: plan.eventId,
      ...dayFields,
      firstName: p.first,
      lastName: p.last,
      email: p.email,
      phone: "205-555-0100",
      grade: "10",
      gender: plan.id % 2 ? "Male" : "Female",
      schoolName: "Rush High School",
      clubName: "",
      tShirtSize: SIZES[plan.id % SIZES.length],
      emergencyContactName: "Pat Family",
      emergencyContactPhone: "205-555-0101", adult: "on",
      specialRequirements: "",
      agrees: "on",
      ...(plan.useCode ? { discountCode: RUSH_CODE.code } : {}),
    },
  };
}

function teamData(plan: FamilyPlan, props: Json) {
  return {
    eventId: plan.eventId,
    formSessionId: (props.values as Json | undefined)?.formSessionId,
    coachInfo: { firstName: "Coach", lastName: `Rush${plan.id}`, email: `coach${plan.id}@example.com`, phone: "205-555-0102", teamName: `Rush Team ${plan.id}` },
    athletes: Array.from({ length: plan.athletes }, (_, i) => {
      const p = person(plan.id, i + 1);
      return { firstName: p.first, lastName: p.last, age: 12 + (i % 6), email: p.email, shirtSize: SIZES[i % SIZES.length], parentName: "Pat Family", parentPhoneNumber: "205-555-0103" };
    }),
    pricePerAthlete: Number(props.teamPriceCents ?? 0) / 100,
    totalAmount: (Number(props.teamPriceCents ?? 0) * plan.athletes) / 100,
    discountedAmount: (Number(props.teamPriceCents ?? 0) * plan.athletes) / 100,
    discountCode: plan.useCode ? RUSH_CODE.code : null,
  };
}

/** One family's visit, start to end; never throws (a failed call is recorded with its status, 0 for no answer). */
export async function runFamily(base: string, stripeUrl: string, plan: FamilyPlan): Promise<FamilyResult> {
  const client = new Client(base, plan.address);
  let formSessionId: string | undefined = undefined; // set once the form is read; done() reports it
  const done = (outcome: FamilyResult["outcome"], extra: Partial<FamilyResult> = {}): FamilyResult => ({ plan, calls: client.calls, outcome, formSessionId, ...extra });
  const team = plan.kind === "team";

  const form = await client.page("page", team ? `/team-register/${plan.eventId}` : `/register/${plan.eventId}`);
  if (form.status !== 200) return done("failed");
  const props = widgetProps(form.body, team ? "TeamForm" : "RegistrationSteps");
  if (!props) return done("sold out");
  formSessionId = toText((props.values as Json | undefined)?.formSessionId ?? "");

  const holdPath = team ? "/api/team-registration" : `/api/events/${plan.eventId}/create-payment-intent`;
  const body = team ? teamData(plan, props) : individualData(plan, props);
  // A double submit: the same form posted twice at once (a double click, or a second tab).
  const holds = await Promise.all(Array.from({ length: plan.doubleSubmit ? 2 : 1 }, () => client.postJson("hold", holdPath, body)));
  const held = holds.find((h) => h.status === 200 && h.json.success === true);
  if (!held) return done(holds.some((h) => h.status >= 500 || h.status === 0) ? "failed" : holds.some((h) => h.status === 409 && /sold out|left at this event/i.test(String(h.json.error))) ? "sold out" : "refused");
  const reference = toText(held.json.registrationId ?? "");
  if (plan.ending === "abandon") return done("abandoned", { reference });

  // The coach's browser goes to the checkout page, which carries the card form's key and client secret.
  let publishableKey = toText(props.publishableKey ?? "");
  let clientSecret = typeof held.json.clientSecret === "string" ? held.json.clientSecret : "";
  if (team) {
    const checkout = await client.page("checkout", toText(held.json.checkoutUrl ?? `/stripe-checkout?eventId=${plan.eventId}&option=team`));
    if (checkout.status !== 200) return done("failed", { reference });
    const key = between(checkout.body, '"publishableKey":"pk_', '"')?.text;
    publishableKey = key ? `pk_${key}` : "";
    clientSecret = between(checkout.body, '"clientSecret":"', '"')?.text ?? "";
  }
  if (!clientSecret || !publishableKey) return done("failed", { reference });

  const confirmed = await client.confirmCard(stripeUrl, publishableKey, clientSecret, PAYING_CARD, `${person(plan.id, 0).first} ${person(plan.id, 0).last}`);
  if (confirmed.status !== 200 || confirmed.json.status !== "succeeded") return done("failed", { reference });
  const intentId = String(confirmed.json.id);
  const charged = { intentId, amountCents: Number(confirmed.json.amount_received), reference };

  const back = await client.postJson("return", `/api/events/${plan.eventId}/stripe-payment-success`, { paymentIntentId: intentId, ...(team ? { option: "team" } : {}) });
  await client.page("landing", team ? `/stripe-checkout?eventId=${plan.eventId}&option=team&success=true` : `/event-registration/${plan.eventId}?paymentSuccess=true&paymentIntentId=${encodeURIComponent(intentId)}`, false);
  return done(back.status === 200 && back.json.status === "paid" ? "paid" : "not confirmed", { reference, charged });
}
