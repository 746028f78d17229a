import { isMysql } from "../../db/dialect.ts";
import { toDate, toJson } from "../../db/rows.ts";
import type { Guardian } from "../../shared/registrations/rules.ts";
import { toText } from "../../shared/toText.ts";
import type { RegistrationStatus } from "./states.ts";
import { str, type Conn, type Row } from "./tables/rows.ts";

/**
 * The registration aggregate: its types and how it is read from its rows (the registration, its athletes in position
 * order, its days in the event's order). The tables are written by core/tables/ only (registrations.ts, holds.ts,
 * formHolds.ts, athletes.ts, changes.ts, cards.ts); the locks in their order are core/locks.ts.
 */

export type { RegistrationStatus };

export type RegistrationKind = "individual" | "team";

export interface RegistrationAthlete {
  /** 1, 2, ... in the order the registrant gave them. */
  position: number;
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  grade: string | null;
  age: number | null;
  gender: string | null;
  schoolName: string | null;
  clubName: string | null;
  shirtSize: string | null;
  emergencyContactName: string;
  emergencyContactPhone: string;
  specialRequirements: string | null;
  /** Withdrawn from its team by the coach (the place is free; the row stays for the record). */
  withdrawnAt: Date | null;
  /** The liability waiver and medical release as signed through the family's link; null until signed. */
  waiver: { version: string; signedName: string; relationship: string; signedAt: Date } | null;
  /** An athlete of a family registered together (siblings): its own package, price, sibling discount and days; absent otherwise. */
  family?: FamilyAthlete;
}

/** A family athlete's own part of the registration (src/shared/registrations/siblings.ts). */
export interface FamilyAthlete {
  packageCode: string;
  packageLabel: string;
  listPriceCents: number;
  siblingDiscountCents: number;
  /** event_days ids, in the event's day order. */
  dayIds: number[];
}

export interface Registration {
  id: number;
  reference: string;
  eventId: number;
  kind: RegistrationKind;
  teamName: string | null;
  status: RegistrationStatus;
  places: number;
  packageCode: string;
  packageLabel: string;
  listPriceCents: number;
  amountCents: number;
  amountPaidCents: number | null;
  contact: { firstName: string; lastName: string; email: string; phone: string };
  /** An individual athlete's parent or guardian (under 18): the e-mails greet them and go to their address. */
  guardian: Guardian | null;
  /** Registered by a request without the guardian block (the spec's shape): the contact is still to be given. */
  guardianMissing?: boolean;
  formSessionId: string;
  reservedUntil: Date | null;
  createdAt: Date;
  paidAt: Date | null;
  athletes: RegistrationAthlete[];
  /** event_days ids, in the event's day order. */
  dayIds: number[];
  /** Bumped when what it pays for changes (package, days, places, code, amount). */
  version: number;
  /** Hashes of the visitor who holds it unpaid (session key, address). */
  holderSession: string | null;
  amountRefundedCents: number;
  /** Canceled by its registrant through the manage link (status `withdrawn`): when, and the refund the policy gave. */
  withdrawnAt: Date | null;
  withdrawalRefundCents: number | null;
  /** Plan deposit (src/shared/registrations/deposits.ts): what its payment is, when the balance is due, the saved card; null: paid in full. */
  deposit: DepositTerms | null;
}

/** A deposit plan's terms as stored on the registration (the balance is `amountCents` minus what was paid). */
export interface DepositTerms {
  depositCents: number;
  balanceDueAt: Date;
  customerId: string | null;
  paymentMethodId: string | null;
  card: { brand: string; last4: string; expMonth: number; expYear: number } | null;
  consent: { version: string; text: string } | null;
}

function depositTerms(row: Row): DepositTerms | null {
  if (toText(row.payment_plan ?? "full") !== "deposit" || row.deposit_cents === null || row.deposit_cents === undefined) return null;
  return {
    depositCents: Number(row.deposit_cents),
    balanceDueAt: toDate(row.balance_due_at)!,
    customerId: str(row.stripe_customer_id),
    paymentMethodId: str(row.payment_method_id),
    card: row.card_last4 ? { brand: toText(row.card_brand), last4: toText(row.card_last4), expMonth: Number(row.card_exp_month), expYear: Number(row.card_exp_year) } : null,
    consent: row.card_consent_version ? { version: toText(row.card_consent_version), text: toText(row.card_consent_text) } : null,
  };
}

function mapAthlete(r: Row): RegistrationAthlete {
  return {
    position: Number(r.position),
    firstName: String(r.first_name),
    lastName: String(r.last_name),
    email: String(r.email),
    phone: str(r.phone),
    grade: str(r.grade),
    age: r.age === null || r.age === undefined ? null : Number(r.age),
    gender: str(r.gender),
    schoolName: str(r.school_name),
    clubName: str(r.club_name),
    shirtSize: str(r.shirt_size),
    emergencyContactName: String(r.emergency_contact_name),
    emergencyContactPhone: String(r.emergency_contact_phone),
    specialRequirements: str(r.special_requirements),
    withdrawnAt: toDate(r.withdrawn_at),
    waiver: r.waiver_version
      ? { version: toText(r.waiver_version), signedName: String(r.waiver_signed_name), relationship: String(r.waiver_signer_relationship), signedAt: toDate(r.waiver_signed_at)! }
      : null,
    ...(r.package_code
      ? {
          family: {
            packageCode: toText(r.package_code),
            packageLabel: toText(r.package_label),
            listPriceCents: Number(r.list_price_cents),
            siblingDiscountCents: Number(r.sibling_discount_cents ?? 0),
            dayIds: toText(r.day_ids ?? "").split(",").filter(Boolean).map(Number),
          },
        }
      : {}),
  };
}

/** A registration from its row, its athletes' rows in position order and its days in the event's order. */
export function registrationOf(row: Row, athletes: Row[], dayIds: number[]): Registration {
  const id = Number(row.id);
  return {
    id,
    reference: String(row.reference),
    eventId: Number(row.event_id),
    kind: String(row.kind) as RegistrationKind,
    teamName: str(row.team_name),
    status: String(row.status) as RegistrationStatus,
    places: Number(row.places),
    packageCode: String(row.package_code),
    packageLabel: String(row.package_label),
    listPriceCents: Number(row.list_price_cents),
    amountCents: Number(row.amount_cents),
    amountPaidCents: row.amount_paid_cents === null || row.amount_paid_cents === undefined ? null : Number(row.amount_paid_cents),
    contact: {
      firstName: String(row.contact_first_name),
      lastName: String(row.contact_last_name),
      email: String(row.contact_email),
      phone: String(row.contact_phone),
    },
    guardian: str(row.guardian_email) ? { name: str(row.guardian_name) ?? "", email: str(row.guardian_email)!, phone: str(row.guardian_phone) ?? "" } : null,
    guardianMissing: row.guardian_missing === true || Number(row.guardian_missing ?? 0) === 1,
    formSessionId: String(row.form_session_id),
    reservedUntil: toDate(row.reserved_until),
    createdAt: toDate(row.created_at)!,
    paidAt: toDate(row.paid_at),
    athletes: athletes.map(mapAthlete),
    dayIds,
    version: Number(row.version ?? 1),
    holderSession: str(row.holder_session),
    amountRefundedCents: Number(row.amount_refunded_cents ?? 0),
    withdrawnAt: toDate(row.withdrawn_at),
    withdrawalRefundCents: row.withdrawal_refund_cents === null || row.withdrawal_refund_cents === undefined ? null : Number(row.withdrawal_refund_cents),
    deposit: depositTerms(row),
  };
}

async function loadRegistration(conn: Conn, row: Row | undefined): Promise<Registration | undefined> {
  if (!row) return undefined;
  const id = Number(row.id);
  const [athletes, days] = await Promise.all([
    conn("registration_athletes").where({ registration_id: id }).orderBy(["position", "id"]),
    conn("registration_days as rd").join("event_days as d", "d.id", "rd.event_day_id").where("rd.registration_id", id).orderBy(["d.sort_order", "d.id"]).select("d.id"),
  ]);
  return registrationOf(row, athletes as Row[], (days as Row[]).map((d) => Number(d.id)));
}

/** The athletes' columns mapAthlete reads (a column it starts to read is added here too), and `id` for their order. */
const ATHLETE_COLUMNS = [
  "id", "position", "first_name", "last_name", "email", "phone", "grade", "age", "gender", "school_name", "club_name", "shirt_size",
  "emergency_contact_name", "emergency_contact_phone", "special_requirements", "withdrawn_at", "waiver_version", "waiver_signed_name",
  "waiver_signer_relationship", "waiver_signed_at", "package_code", "package_label", "list_price_cents", "sibling_discount_cents", "day_ids",
];
const ATHLETES_JSON = `(select json_arrayagg(json_object(${ATHLETE_COLUMNS.map((c) => `'${c}', a.${c}`).join(", ")})) from registration_athletes a where a.registration_id = r.id) as athletes_json`;
const DAYS_JSON = "(select json_arrayagg(json_array(d.sort_order, d.id)) from registration_days rd join event_days d on d.id = rd.event_day_id where rd.registration_id = r.id) as days_json";

const byOrder = (a: [number, number], b: [number, number]) => a[0] - b[0] || a[1] - b[1];

/**
 * A registration read whole by one of its unique columns; `lock`: its row locked for the transaction (FOR UPDATE).
 * On MySQL one statement: the row with its athletes and days aggregated as JSON in subqueries (neither MySQL 8 nor
 * MariaDB orders inside JSON_ARRAYAGG alike, so they are put in order here). The subqueries read without a lock, as
 * the separate reads did: InnoDB evaluates them after the row's lock is granted, with a fresh READ COMMITTED view,
 * and every writer of the athletes and days but the privacy erasure (which never took it) holds the registration's lock
 * (test/integration/registrations/booking/registrationRead.test.ts).
 * SQLite reads the athletes and days apart (one connection: nothing to save).
 */
export async function readRegistration(conn: Conn, where: { reference: string } | { form_session_id: string }, lock: boolean): Promise<Registration | undefined> {
  return (await readWhole(conn, where, lock))?.r;
}

/** readRegistration, with `extra` columns of the same statement on MySQL (subqueries on `r`), answered in `row`. */
export async function readWhole(conn: Conn, where: { reference: string } | { form_session_id: string }, lock: boolean, extra: string[] = []): Promise<{ r: Registration; row: Row } | undefined> {
  if (!isMysql(conn)) {
    const q = conn<Row>("registrations").where(where);
    const row: Row | undefined = await (lock ? q.forUpdate() : q).first();
    const r = await loadRegistration(conn, row);
    return r ? { r, row: row! } : undefined;
  }
  const [column, value] = Object.entries(where)[0]!;
  const q = conn<Row>("registrations as r").where(`r.${column}`, value).select("r.*", ...[ATHLETES_JSON, DAYS_JSON, ...extra].map((sql) => conn.raw(sql)));
  const row = (await (lock ? q.forUpdate() : q).first()) as Row | undefined;
  if (!row) return undefined;
  const { athletes_json, days_json, ...own } = row;
  const athletes = toJson<Row[]>(athletes_json, []).sort((a, b) => byOrder([Number(a.position), Number(a.id)], [Number(b.position), Number(b.id)]));
  const days = toJson<[number, number][]>(days_json, []).sort(byOrder);
  return { r: registrationOf(own, athletes, days.map((d) => Number(d[1]))), row };
}

