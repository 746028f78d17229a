/**
 * Every unsafe route of the site, in one table. A route listed here is fuzzed (when it reads fields) and
 * attacked by the CSRF and Origin matrix: a new route joins both with one entry.
 *
 * `path` may hold `:line`, replaced by the id of the one line in the test visitor's cart. Event routes name their
 * event in the path (1: a full-event camp, 3: the clinic that takes college coach requests).
 * `fields` are what a valid request sends, by dotted path ("customerInfo.email", "items.0.quantity"),
 * each with its kind, which decides the invalid values the fuzzer tries.
 */

export type FieldKind =
  | { kind: "line" } // single-line text
  | { kind: "text" } // multi-line text
  | { kind: "email" }
  | { kind: "id" } // a string or number id (product, variant)
  | { kind: "quantity"; min: 0 | 1 }
  | { kind: "choice" } // one of a fixed list
  | { kind: "paymentIntent" };

export interface Field {
  type: FieldKind;
  /** A valid value; `{line}` inside a string is the cart line id, `{coachDay}` the date of event 3's first day. */
  valid: unknown;
  /** The route accepts null or blank here (an optional field left out). */
  nullable?: boolean;
}

/** The token of the team invite the fuzz test makes (43 URL-safe characters, as a real one). */
export const INVITE_TOKEN = "FuzzInviteToken0000000000000000000000000000";

export interface UnsafeRoute {
  method: "POST" | "PATCH" | "DELETE";
  path: string;
  /** How a browser sends it: a fetch with JSON, a plain HTML form, or no body. */
  body: "json" | "form" | "none";
  fields?: Record<string, Field>;
}

const line = (valid: string, nullable = false): Field => ({ type: { kind: "line" }, valid, nullable });
const text = (valid: string): Field => ({ type: { kind: "text" }, valid });
const email = (valid = "sam@example.com"): Field => ({ type: { kind: "email" }, valid });
const id = (valid: string): Field => ({ type: { kind: "id" }, valid });
const quantity = (valid: number | string, min: 0 | 1 = 1, nullable = false): Field => ({ type: { kind: "quantity", min }, valid, nullable });
const choice = (valid: string): Field => ({ type: { kind: "choice" }, valid });

const customer = (prefix: string) => ({
  [`${prefix}firstName`]: line("Sam"),
  [`${prefix}lastName`]: line("Rivera"),
  [`${prefix}email`]: email(),
  [`${prefix}phone`]: line("205-555-0100", true),
});

/** Step 1 of an individual registration (the spec's field names). */
const athlete = (prefix: string) => ({
  [`${prefix}formSessionId`]: line("security-table-form-0001"),
  [`${prefix}registrationType`]: choice("full"),
  [`${prefix}firstName`]: line("Jordan"),
  [`${prefix}lastName`]: line("Reyes"),
  [`${prefix}email`]: email("jordan@example.com"),
  [`${prefix}phone`]: line("(205) 555-0100"),
  [`${prefix}grade`]: line("10th"),
  [`${prefix}gender`]: choice("Male"),
  [`${prefix}schoolName`]: line("Central High"),
  [`${prefix}clubName`]: line("Steel City WC"),
  [`${prefix}tShirtSize`]: choice("Medium"),
  [`${prefix}emergencyContactName`]: line("Maria Reyes"),
  [`${prefix}emergencyContactPhone`]: line("205-555-0199"),
  [`${prefix}guardianName`]: line("Maria Reyes"),
  [`${prefix}guardianEmail`]: email("maria.reyes@example.com"),
  [`${prefix}guardianPhone`]: line("205-555-0142"),
  [`${prefix}specialRequirements`]: text("Peanut allergy.\nBring an EpiPen."),
  [`${prefix}agrees`]: choice("on"),
});

/** A college coach's request for event 3. */
const coach = () => ({
  eventId: id("3"),
  fullName: line("Dana Reyes"),
  title: line("Head Coach"),
  collegeName: line("Ironwood University"),
  email: email("dana.reyes@ironwood.example.edu"),
  cellPhone: line("(817) 555-0134"),
  schoolPhone: line("817-555-0100"),
  schoolWebsite: line("athletics.ironwood.example.edu"),
  divisionLevel: choice("D1"),
  conference: line("Big 12"),
  numberOfAthletes: quantity("12", 0, true),
  "areasOfInterest.0": choice("Lightweight (125-141 lbs)"),
  "daysAttending.0": choice("{coachDay}"),
  notes: text("Arriving Thursday morning.\nTwo assistants."),
});

/** A coach and the smallest team (five athletes) as the team form sends them. */
const team = () => ({
  "coachInfo.firstName": line("Dana"),
  "coachInfo.lastName": line("Brooks"),
  "coachInfo.email": email("coach@example.com"),
  "coachInfo.phone": line("205-555-0142"),
  "coachInfo.teamName": line("Central WC", true),
  ...Object.fromEntries(
    [0, 1, 2, 3, 4].flatMap((i) => [
      [`athletes.${i}.firstName`, line(`Athlete${i}`)],
      [`athletes.${i}.lastName`, line("Rivera")],
      [`athletes.${i}.age`, line("14")],
      [`athletes.${i}.email`, email(`athlete${i}@example.com`)],
      [`athletes.${i}.shirtSize`, choice("Medium")],
      [`athletes.${i}.parentName`, line("Pat Rivera")],
      [`athletes.${i}.parentPhoneNumber`, line("205-555-0100")],
    ]),
  ),
});

export const UNSAFE_ROUTES: UnsafeRoute[] = [
  // messages
  { method: "POST", path: "/api/contact", body: "json", fields: { name: line("Sam Rivera"), email: email(), phone: line("205-555-0100"), subject: line("Camp sizes"), message: text("Which sizes\nare left?") } },
  { method: "POST", path: "/contact", body: "form", fields: { name: line("Sam Rivera"), email: email(), phone: line("205-555-0100"), subject: line("Camp sizes"), message: text("Which sizes\r\nare left?") } },
  { method: "POST", path: "/api/quote-requests", body: "json", fields: { organization: line("Central High"), contactName: line("Sam Rivera"), email: email(), phone: line("205-555-0100"), "apparelNeeds.0": choice("Rashguards"), estimatedQuantity: choice("11-25"), referenceDesign: line("Gold Rush"), details: text("Navy and gold.\nTwo sets.") } },
  { method: "POST", path: "/custom-apparel/quote", body: "form", fields: { organization: line("Central High"), contactName: line("Sam Rivera"), email: email(), phone: line("205-555-0100"), apparelNeeds: choice("Rashguards"), estimatedQuantity: choice("11-25"), referenceDesign: line("Gold Rush"), details: text("Navy and gold.") } },
  { method: "POST", path: "/api/newsletter", body: "json", fields: { email: email() } },
  { method: "POST", path: "/newsletter", body: "form", fields: { email: email() } },
  // cart
  { method: "POST", path: "/api/cart/add", body: "json", fields: { shopifyProductId: id("1001"), shopifyVariantId: id("2001"), quantity: quantity(1), selectedSize: line("M", true) } },
  { method: "POST", path: "/cart/add", body: "form", fields: { productId: id("1001"), variantId: id("2001"), quantity: quantity("1") } },
  { method: "PATCH", path: "/api/cart/items/:line", body: "json", fields: { quantity: quantity(2, 0) } },
  { method: "POST", path: "/cart/items/:line/update", body: "form", fields: { quantity: quantity("2", 0) } },
  { method: "POST", path: "/cart/items/:line/remove", body: "form" },
  { method: "POST", path: "/cart/items/:line/accept-price", body: "form" },
  { method: "POST", path: "/cart/clear", body: "form" },
  { method: "DELETE", path: "/api/cart/items/:line", body: "none" },
  { method: "DELETE", path: "/api/cart", body: "none" },
  // checkout and payment
  { method: "POST", path: "/cart/checkout", body: "form", fields: customer("") },
  {
    method: "POST",
    path: "/api/cart/checkout",
    body: "json",
    fields: {
      "items.0.id": line("{line}"),
      "items.0.shopifyProductId": id("1002"),
      "items.0.shopifyVariantId": id("2101"),
      "items.0.quantity": quantity(1),
      ...customer("customerInfo."),
    },
  },
  { method: "POST", path: "/api/cart/checkout/complete", body: "json", fields: { paymentIntentId: { type: { kind: "paymentIntent" }, valid: "pi_unknown123" } } },
  // individual registration
  { method: "POST", path: "/register/1", body: "form", fields: athlete("") },
  { method: "POST", path: "/api/events/1/create-payment-intent", body: "json", fields: athlete("registrationData.") },
  { method: "POST", path: "/api/events/1/stripe-payment-success", body: "json", fields: { paymentIntentId: { type: { kind: "paymentIntent" }, valid: "pi_unknown123" } } },
  // after payment: the manage link (an unknown token answers 404 after the CSRF check) and "Lost your confirmation?"
  { method: "POST", path: "/events/1/lost-confirmation", body: "form", fields: { email: email() } },
  // "Registered before?": the link that fills in a form
  { method: "POST", path: "/events/1/returning", body: "form", fields: { email: email(), from: choice("register") } },
  { method: "POST", path: "/my-registration/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/details", body: "form", fields: { version: line("1"), tShirtSize: choice("Large") } },
  { method: "POST", path: "/my-registration/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/cancel", body: "form", fields: { version: line("1"), scope: choice("all") } },
  { method: "POST", path: "/my-registration/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/athlete-days", body: "form", fields: { version: line("1"), athlete: line("2"), day1: choice("on") } },
  { method: "POST", path: "/my-registration/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/upgrade", body: "form", fields: { version: line("1"), registrationType: choice("full") } },
  { method: "POST", path: "/my-registration/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/athletes", body: "form", fields: { "athletes.0.firstName": line("Sam") } },
  { method: "POST", path: "/my-registration/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/changes/1/cancel", body: "form", fields: {} },
  { method: "POST", path: "/my-registration/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/changes/1/paid", body: "json", fields: { paymentIntentId: { type: { kind: "paymentIntent" }, valid: "pi_unknown123" } } },
  // discount codes and free registrations
  { method: "POST", path: "/api/validate-discount", body: "json", fields: { discountCode: line("CAMP10"), eventId: id("1") } },
  { method: "POST", path: "/register/1/discount", body: "form", fields: { discountCode: line("CAMP10") } },
  { method: "POST", path: "/register/1/free", body: "form", fields: { discountCode: line("FREECAMP") } },
  // The free form of the same path: the discounts router answers it.
  { method: "POST", path: "/api/events/1/stripe-payment-success", body: "json", fields: { freeRegistration: choice("true"), discountCode: line("FREECAMP") } },
  // college coach requests
  { method: "POST", path: "/api/clinician-request", body: "json", fields: coach() },
  { method: "POST", path: "/coach-registration", body: "form", fields: coach() },
  // team registration
  { method: "POST", path: "/api/team-registration", body: "json", fields: { eventId: id("2"), ...team() } },
  { method: "POST", path: "/team-register/2", body: "form", fields: team() },
  // a team's invite link: a family's row (the fuzz test makes the invite INVITE_TOKEN opens; elsewhere it is unknown: 404 after the CSRF check)
  {
    method: "POST",
    path: `/team-invite/${INVITE_TOKEN}`,
    body: "form",
    fields: {
      "athlete.firstName": line("Sam"),
      "athlete.lastName": line("Lee"),
      "athlete.age": line("14"),
      "athlete.email": email(),
      "athlete.shirtSize": choice("Large"),
      "athlete.parentName": line("Pat Lee"),
      "athlete.parentPhoneNumber": line("2055550100"),
    },
  },
];

/** The tables a request could write to: none may gain or lose a row through invalid or forged input. */
export const DATA_TABLES = [
  "contact_messages",
  "quote_requests",
  "newsletter_subscribers",
  "orders",
  "order_items",
  "payments",
  "stripe_events",
  "email_outbox",
  "checkout_locks",
  "shopify_writebacks",
  "registrations",
  "registration_athletes",
  "registration_days",
  "discount_codes",
  "discount_redemptions",
  "returning_links",
  "coach_requests",
  "coach_request_days",
  "team_invites",
  "team_invite_rows",
];

/** What the valid values' placeholders stand for in one test app. */
export interface Slots {
  line: string;
  coachDay: string;
}

/** The valid fields of a route as a nested object (dotted paths become objects and arrays). */
export function validBody(route: UnsafeRoute, slots: Slots, override?: { path: string; value: unknown }): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [path, field] of Object.entries(route.fields ?? {})) {
    const value = override?.path === path ? override.value : typeof field.valid === "string" ? field.valid.replace("{line}", slots.line).replace("{coachDay}", slots.coachDay) : field.valid;
    setPath(body, path, value);
  }
  return body;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  let node: Record<string, unknown> = target;
  parts.forEach((part, i) => {
    if (i === parts.length - 1) {
      node[part] = value;
      return;
    }
    const nextIsIndex = /^\d+$/.test(parts[i + 1]!);
    node[part] ??= nextIsIndex ? [] : {};
    node = node[part] as Record<string, unknown>;
  });
}

export const routePath = (route: UnsafeRoute, lineId: string) => route.path.replace(":line", lineId);
