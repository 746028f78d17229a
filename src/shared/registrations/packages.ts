/**
 * The packages an individual can register for, in one place: their codes (event_packages.code), each one's one name,
 * how many days each attends, which package is an event's headline, and which moves between packages a paid
 * registration may make. Adding a package type: a row here, a migration that offers it on events, and its tests.
 * Browser-safe: plain data and pure rules.
 *
 * An event names its own offer of a package in event_packages.label ('Full Camp (3 Days)', 'Full Tour (3 Days)'): that is
 * the one name a visitor sees for the package (its page, its form, the waiting list and the offer, the manage page and
 * every e-mail, through rules.ts findPackage or the registration's stored package_label). Two places say the spec's own
 * word instead (events.md): the payment step's summary says the package's `name` below ("Full Event or Single Day")
 * and the checkout page its `checkoutName` ("Full Camp or Single Day").
 */

interface PackageRule {
  /** The package's own name: the payment step's summary (the spec's "Full Event or Single Day") and default labels. */
  name: string;
  /** Days the athlete attends: "every" day of the event, or this many days the athlete picks. */
  days: "every" | number;
  /** Whether the form offers it under its own name rather than the event's label (the spec calls it 'Single Day'). */
  offeredByName?: boolean;
  /** The spec's word for it on the checkout page, where that differs (events.md: "the option (Full Camp or Single Day)"). */
  checkoutName?: string;
}

export const PACKAGES = {
  full: { name: "Full Event", days: "every", checkoutName: "Full Camp" },
  "1day": { name: "1 Day", days: 1 },
  "2day": { name: "2 Days", days: 2 },
  singleDay: { name: "Single Day", days: 1, offeredByName: true },
} as const satisfies Record<string, PackageRule>;

export type PackageCode = keyof typeof PACKAGES;
export const PACKAGE_CODES = Object.keys(PACKAGES) as PackageCode[];

/** The headline package: every event offers it (its price is the event's headline price) and the form starts on it. */
export const HEADLINE_PACKAGE: PackageCode = "full";

export function isPackageCode(code: string): code is PackageCode {
  return Object.hasOwn(PACKAGES, code);
}

const rule = (code: PackageCode): PackageRule => PACKAGES[code];

/** The package's own name ('Full Event'), as the payment step sums it up; a code that is no package is shown as it is. */
export function packageName(code: string): string {
  return isPackageCode(code) ? rule(code).name : code;
}

/** The package as the checkout page (/stripe-checkout) names it: the spec's words there. */
export function checkoutPackageName(code: string): string {
  return isPackageCode(code) ? (rule(code).checkoutName ?? rule(code).name) : code;
}

/** What the form offers a package as: the event's own label, or the package's name where the spec fixes it. */
export function offeredLabel(code: PackageCode, eventLabel: string): string {
  return rule(code).offeredByName ? rule(code).name : eventLabel;
}

/** How many days the package's athlete attends at an event of `eventDays` days. */
export function packageDayCount(code: PackageCode, eventDays: number): number {
  const days = rule(code).days;
  return days === "every" ? eventDays : days;
}

/** The label an operator's new package gets when none is given ('Full Event (3 Days)', '2 Days'). */
export function defaultPackageLabel(code: PackageCode, eventDays: number): string {
  if (rule(code).days !== "every") return rule(code).name;
  return `${rule(code).name} (${eventDays} ${eventDays === 1 ? "Day" : "Days"})`;
}

/**
 * A paid registration's move from its package to another of the same event: an upgrade to a dearer one (it pays
 * the difference of the list prices), a downgrade to a cheaper one (the difference is refunded); none to the same
 * package or one at the same price.
 */
export function packageMove(from: { code: string; priceCents: number }, to: { code: string; priceCents: number }): "upgrade" | "downgrade" | null {
  if (from.code === to.code || to.priceCents === from.priceCents) return null;
  return to.priceCents > from.priceCents ? "upgrade" : "downgrade";
}

/** An event's package rows that name no package: the start refuses them (src/events/repository.ts, checkPackageCodes). */
export function unknownPackageCodes(rows: { eventId: number; code: string }[]): { eventId: number; code: string }[] {
  return rows.filter((r) => !isPackageCode(r.code));
}
