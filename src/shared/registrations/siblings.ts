/**
 * Siblings in one registration (issue 43): an individual registration takes the athlete of the spec's form and up to
 * three brothers or sisters (one guardian, one payment, one place each, each with its own package and days). The
 * event's sibling discount comes off each additional athlete: the dearest athlete (the first of equals, in the
 * form's order) pays the full package price, every other athlete gets the discount, never more than its price.
 * Exact cents; the server prices every hold with these rules, the form shows the same sums. Browser-safe.
 */
import { formatPrice } from "../money.ts";

/** An athlete and up to three brothers or sisters (the waiting list's individual entry takes as many places). */
export const MAX_SIBLINGS = 4;

export const SIBLING_DISCOUNT_KINDS = ["none", "fixed", "percent"] as const;
export type SiblingDiscountKind = (typeof SIBLING_DISCOUNT_KINDS)[number];

/** An event's sibling discount: fixed cents, or a whole percent of the package price, off each additional athlete. */
export interface SiblingDiscount {
  kind: SiblingDiscountKind;
  /** fixed: cents; percent: whole percent (1 to 99). */
  value: number;
}

export const NO_SIBLING_DISCOUNT: SiblingDiscount = { kind: "none", value: 0 };

/** One athlete's price in a family: the package price, the sibling discount on it and what is due for it. */
export interface FamilyLine {
  listCents: number;
  discountCents: number;
  dueCents: number;
}

export interface FamilyPrice {
  lines: FamilyLine[];
  listCents: number;
  discountCents: number;
  totalCents: number;
}

/** The sibling discount on one additional athlete's package price. */
export function siblingDiscountOn(listCents: number, discount: SiblingDiscount): number {
  if (discount.kind === "fixed") return Math.min(listCents, Math.max(0, discount.value));
  // Half a cent and more rounds up: list * percent is a whole number of hundredths of a cent.
  if (discount.kind === "percent") return Math.min(listCents, Math.round((listCents * discount.value) / 100));
  return 0;
}

/** The family's prices, athlete by athlete in the form's order (see the module's comment for who pays full price). */
export function familyPrice(listCents: readonly number[], discount: SiblingDiscount): FamilyPrice {
  const full = listCents.reduce((best, cents, i) => (cents > listCents[best]! ? i : best), 0);
  const lines = listCents.map((cents, i) => {
    const off = listCents.length > 1 && i !== full ? siblingDiscountOn(cents, discount) : 0;
    return { listCents: cents, discountCents: off, dueCents: cents - off };
  });
  const sum = (f: (l: FamilyLine) => number) => lines.reduce((a, l) => a + f(l), 0);
  return { lines, listCents: sum((l) => l.listCents), discountCents: sum((l) => l.discountCents), totalCents: sum((l) => l.dueCents) };
}

/** "$25.00 off each additional athlete" / "10% off each additional athlete"; null when the event has none. */
export function siblingDiscountText(discount: SiblingDiscount): string | null {
  if (discount.kind === "fixed" && discount.value > 0) return `${formatPrice(discount.value)} off each additional athlete`;
  if (discount.kind === "percent" && discount.value > 0) return `${discount.value}% off each additional athlete`;
  return null;
}

export const SIBLING_TEXT = {
  add: "Add a sibling",
  remove: (n: number) => `Remove athlete ${n}`,
  heading: (n: number) => `Athlete ${n}`,
  hint: `Brothers and sisters register together: up to ${MAX_SIBLINGS} athletes, one payment.`,
  tooMany: `Up to ${MAX_SIBLINGS} athletes of one family can register together.`,
  discountLine: "Sibling discount",
  packageByRequest: "Each athlete of a family has its own package: write to us to change it.",
  /** A waiting-list offer's form: the places it holds decide how many athletes it registers. */
  offerHint: (n: number) => `Your waiting-list offer holds ${n} places: one for each athlete on this form, paid together.`,
  offerFixed: (n: number) => `Your waiting-list offer holds ${n} ${n === 1 ? "place" : "places"}: this form registers exactly ${n} ${n === 1 ? "athlete" : "athletes"}. To change that, decline the offer and join the waiting list again.`,
  total: "Total",
} as const;

/** The form's field of an additional athlete: `sibling2_firstName` for the second athlete (2 to MAX_SIBLINGS). */
export const siblingField = (athlete: number, name: string) => `sibling${athlete}_${name}`;

/** The hidden field that says how many additional athletes the form holds (0 to MAX_SIBLINGS - 1). */
export const SIBLINGS_FIELD = "siblings";

/** The no-JavaScript buttons' field: `add-sibling`, or `remove-sibling-N` (N: the athlete's number). */
export const SIBLING_INTENT_FIELD = "siblingIntent";

/** How many additional athletes the values hold: 0 when absent, null when not a count the form allows. */
export function siblingCount(values: Record<string, unknown>): number | null {
  const raw = values[SIBLINGS_FIELD];
  if (raw === undefined || raw === null || raw === "") return 0;
  const n = typeof raw === "number" ? raw : typeof raw === "string" && /^\d$/.test(raw) ? Number(raw) : NaN;
  return Number.isInteger(n) && n >= 0 && n < MAX_SIBLINGS ? n : null;
}

/** The fields one additional athlete has of its own (the contact, emergency contact and guardian are the family's). */
export const SIBLING_FIELDS = ["registrationType", "firstName", "lastName", "grade", "gender", "schoolName", "clubName", "tShirtSize", "specialRequirements"] as const;

/** The values after the no-JavaScript form's add or remove button: one more athlete, or athlete N taken out and the later ones moved up. */
export function applySiblingIntent(values: Record<string, string>, intent: string, dayCount: number): Record<string, string> {
  const n = siblingCount(values) ?? 0;
  const { [SIBLING_INTENT_FIELD]: _intent, ...next } = values;
  if (intent === "add-sibling") {
    if (n + 1 < MAX_SIBLINGS) next[SIBLINGS_FIELD] = String(n + 1);
    return next;
  }
  const m = /^remove-sibling-(\d)$/.exec(intent);
  const removed = m ? Number(m[1]) : 0;
  if (removed < 2 || removed > n + 1) return next;
  const names = [...SIBLING_FIELDS, ...Array.from({ length: dayCount }, (_, i) => `day${i + 1}`)];
  for (let athlete = removed; athlete <= n + 1; athlete++) {
    for (const name of names) {
      const later = values[siblingField(athlete + 1, name)];
      if (athlete <= n && later !== undefined) next[siblingField(athlete, name)] = later;
      else delete next[siblingField(athlete, name)];
    }
  }
  next[SIBLINGS_FIELD] = String(n - 1);
  return next;
}

/** One athlete of a family as the payment step, the e-mail and the manage page list it. */
export interface FamilyLineView {
  name: string;
  packageLabel: string;
  days: string[];
  listCents: number;
  siblingDiscountCents: number;
}

/** The sibling discount of a family's lines, summed. */
export const familyDiscountCents = (lines: readonly FamilyLineView[]) => lines.reduce((a, l) => a + l.siblingDiscountCents, 0);

/** A family as label and text rows (the e-mail's facts, the manage page's): each athlete's package, days and price, then the discount. */
export function familyFactRows(lines: readonly FamilyLineView[]): [string, string][] {
  const off = familyDiscountCents(lines);
  return [
    ...lines.map((l, i): [string, string] => [SIBLING_TEXT.heading(i + 1), `${l.name}: ${l.packageLabel}${l.days.length ? ` (${l.days.join(", ")})` : ""}, ${formatPrice(l.listCents)}`]),
    ...(off > 0 ? [[SIBLING_TEXT.discountLine, `-${formatPrice(off)}`] as [string, string]] : []),
  ];
}
