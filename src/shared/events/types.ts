/** Event data as pages, APIs and registration read it. Browser-safe (types only). */
import type { PackageCode } from "../registrations/packages.ts";
import type { DepositPolicy } from "../registrations/deposits.ts";
import type { SiblingDiscount } from "../registrations/siblings.ts";

export interface EventPackage {
  code: PackageCode;
  label: string;
  priceCents: number;
  /** How many days the athlete attends (the full package covers every day). */
  dayCount: number;
}

export interface EventDay {
  id: number;
  label: string;
  /** Calendar date, YYYY-MM-DD. */
  date: string;
}

export interface EventCoach {
  id: number;
  name: string;
  title: string;
  bio: string;
  image: string;
}

export interface CollegeLogo {
  id: number;
  name: string;
  image: string;
}

export interface EventSummary {
  id: number;
  title: string;
  shortDescription: string;
  category: string;
  /** Dates as shown to visitors, e.g. 'June 5-7, 2027'. */
  dateText: string;
  startDate: Date;
  endDate: Date;
  time: string;
  location: string;
  image: string;
  /** A line printed over the card picture on /events (event 3). */
  cardOverlay: string | null;
  capacity: number;
  ageGroup: string;
  /** The athletes' ages the event takes (the team form checks them): 10 to 19 for 'Ages 10+ through high school'. */
  ageLimits: { min: number; max: number };
  /** The venue's IANA time zone: closing and hold times are shown in it, with the zone named. */
  timeZone: string;
  listed: boolean;
  /** When registration closes: `registration_closes_at`, defaulting to (and never after) the start. */
  registrationClosesAt: Date;
  /** The full package's price: the event's headline price. */
  fullPriceCents: number;
  /** Regular individual price per athlete (the full package price), against which team savings are counted. */
  regularPriceCents: number;
  teamPriceCents: number;
  /** Struck-through promotional price, e.g. 34900 for event 2. */
  originalPriceCents: number | null;
  packages: EventPackage[];
  days: EventDay[];
  collegeLogos: CollegeLogo[];
  /** College coaches can request to attend (the recruiting clinic); absent means no. */
  coachRegistration?: boolean;
  /** The payment plan offered beside paying in full (src/shared/registrations/deposits.ts). */
  depositPolicy: DepositPolicy;
  /** Off each additional athlete of a family registered together (src/shared/registrations/siblings.ts); absent: none. */
  siblingDiscount?: SiblingDiscount;
}

export interface EventDetail extends EventSummary {
  description: string;
  features: string[];
  coaches: EventCoach[];
}
