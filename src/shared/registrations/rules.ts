/**
 * Individual registration rules: packages and their prices, the day choice, and the form's one zod schema,
 * shared by the server and the RegistrationSteps widget so both show the spec's words.
 * Browser-safe: zod and plain data only.
 */
import * as z from "zod/mini";
import { multiLine, singleLine } from "../text.ts";
import type { EventDay, EventPackage } from "../events/types.ts";
import { HEADLINE_PACKAGE, offeredLabel, type PackageCode } from "./packages.ts";
import { MAX_SIBLINGS, SIBLING_FIELDS, SIBLING_TEXT, SIBLINGS_FIELD, siblingCount, siblingField } from "./siblings.ts";

/** The spec's messages (section 5 and the error catalogue), word for word. */
export const REGISTRATION_MESSAGES = {
  required: "This field is required",
  email: "Please enter a valid email address",
  phone: "Please enter a valid 10-digit phone number",
  agreement: "You must agree to the terms and conditions",
  notFoundTitle: "Event Not Found",
  notFound: "The event you are trying to register for does not exist.",
  confirmedTitle: "Payment Confirmed - Registration Complete!",
} as const;

/** Our own messages, where the spec has none. */
export const REGISTRATION_ERRORS = {
  closed: "Registration for this event is closed.",
  soldOut: "This event is sold out: every place is taken or held. Please choose another event.",
  packageUnknown: "Please choose one of the registration options",
  tooLong: (max: number) => `Please keep this under ${max} characters`,
  formExpired: "This registration form has expired. Please reload the page and try again.",
  formInvalid: "Please correct the highlighted fields",
} as const;

/** 'You must select exactly 1 day / 2 days to match your chosen package', for the package's count. */
export const dayChoiceMessage = (count: number) => `You must select exactly ${count} ${count === 1 ? "day" : "days"} to match your chosen package`;

export const GENDERS = ["Male", "Female"] as const;
export const SHIRT_SIZES = ["Small", "Medium", "Large", "XL", "XXL", "3XL", "4XL"] as const;
export const DEFAULT_PACKAGE: PackageCode = HEADLINE_PACKAGE;

/** What the form needs to know about the event: its packages and its days. */
export interface RegistrationEventFacts {
  packages: EventPackage[];
  days: EventDay[];
}

/** The package a visitor can choose, in the event's order, as the form offers it (packages.ts: offeredLabel). */
export function packageOptions(event: RegistrationEventFacts): EventPackage[] {
  return event.packages.map((p) => ({ ...p, label: offeredLabel(p.code, p.label) }));
}

/** The package for a code, or undefined when the event does not offer it. */
export function findPackage(event: RegistrationEventFacts, code: string): EventPackage | undefined {
  return packageOptions(event).find((p) => p.code === code);
}

/** A package covering every day of the event needs no choice: its days are all of them. */
export function coversEveryDay(pkg: EventPackage, event: RegistrationEventFacts): boolean {
  return pkg.dayCount >= event.days.length;
}

/** The day ids a registration attends: every day for a full package, else the chosen ones in the event's order. */
export function attendedDayIds(event: RegistrationEventFacts, pkg: EventPackage, chosen: number[]): number[] {
  if (coversEveryDay(pkg, event)) return event.days.map((d) => d.id);
  return event.days.filter((d) => chosen.includes(d.id)).map((d) => d.id);
}

/**
 * What the day boxes' hint says. With the package known (the widget running) it names that package's count; without
 * it (the page as the server sends it, and so without JavaScript) it says what to tick for each package.
 */
export function dayChoiceHint(event: RegistrationEventFacts, chosen: EventPackage | undefined): string {
  const count = (n: number) => `${n} ${n === 1 ? "day" : "days"}`;
  if (chosen) return coversEveryDay(chosen, event) ? "Your package includes every day." : `Tick ${count(chosen.dayCount)} for your package.`;
  const options = packageOptions(event);
  const full = options.filter((p) => coversEveryDay(p, event)).map((p) => p.label);
  const partial = options.filter((p) => !coversEveryDay(p, event)).map((p) => `${p.label}, tick ${count(p.dayCount)}`);
  if (partial.length === 0) return "Your package includes every day.";
  const fullText = full.length > 0 ? `${full.join(" and ")} ${full.length === 1 ? "includes" : "include"} every day (no need to tick any). ` : "";
  return `${fullText}For ${partial.join("; for ")}.`;
}

/** The labels of the days a form's values attend ('Saturday, June 5'), in the event's order: for the payment step. */
export function attendedDayLabels(event: RegistrationEventFacts, values: Record<string, unknown>): string[] {
  const code = typeof values.registrationType === "string" && values.registrationType ? values.registrationType : DEFAULT_PACKAGE;
  const pkg = findPackage(event, code);
  if (!pkg) return [];
  const chosen = event.days.filter((_, i) => isChecked(values[dayField(i)])).map((d) => d.id);
  const ids = attendedDayIds(event, pkg, chosen);
  return event.days.filter((d) => ids.includes(d.id)).map((d) => d.label);
}

/** The form's day checkboxes are day1, day2, day3... in the event's day order (the spec's names). */
export const dayField = (index: number) => `day${index + 1}`;

export const isChecked = (v: unknown) => v === true || v === "on" || v === "true" || v === "1";

const required = (max: number) =>
  singleLine(REGISTRATION_MESSAGES.required).check(z.minLength(1, REGISTRATION_MESSAGES.required), z.maxLength(max, REGISTRATION_ERRORS.tooLong(max)));

const optional = (max: number, lines: "single" | "multi" = "single") =>
  z.pipe(
    z.optional((lines === "single" ? singleLine() : multiLine()).check(z.maxLength(max, REGISTRATION_ERRORS.tooLong(max)))),
    z.transform((v) => (v ? v : undefined)),
  );

const phone = () => required(40).check(z.refine((v) => v.replace(/\D/g, "").length === 10, REGISTRATION_MESSAGES.phone));

const email = () => z.pipe(required(254), z.email(REGISTRATION_MESSAGES.email));

/** A server-issued random id per form: resubmitting the same form reuses its registration. */
export const formSessionIdSchema = z.string().check(z.regex(/^[A-Za-z0-9_-]{16,64}$/, REGISTRATION_ERRORS.formExpired));

export interface IndividualRegistration {
  formSessionId: string;
  registrationType: PackageCode;
  dayIds: number[];
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  grade: string;
  gender: (typeof GENDERS)[number];
  schoolName: string;
  clubName: string | undefined;
  tShirtSize: (typeof SHIRT_SIZES)[number] | undefined;
  emergencyContactName: string;
  emergencyContactPhone: string;
  specialRequirements: string | undefined;
  /** The parent or guardian of an athlete under 18 (null: the form says the athlete is 18 or older, or see guardianMissing). */
  guardian: Guardian | null;
  /** A request of the spec's shape, without the guardian block: registered, and the contact is asked for afterwards. */
  guardianMissing?: true;
  agrees: true;
  /** Brothers and sisters registered with the athlete (siblings.ts): athletes 2 to 4, each with its own package and days. */
  siblings?: SiblingEntry[];
}

/** An additional athlete of a family: its own details, package and days (the contact and emergency contact are the first athlete's). */
export interface SiblingEntry {
  registrationType: PackageCode;
  dayIds: number[];
  firstName: string;
  lastName: string;
  grade: string;
  gender: (typeof GENDERS)[number];
  schoolName: string;
  clubName: string | undefined;
  tShirtSize: (typeof SHIRT_SIZES)[number] | undefined;
  specialRequirements: string | undefined;
}

/** An individual athlete's parent or guardian: who the registration's e-mails greet and go to. */
export interface Guardian {
  name: string;
  email: string;
  phone: string;
}

/** The guardian block's fields: asked unless the box "The athlete is 18 or older" (`adult`) is ticked. */
export const GUARDIAN_FIELDS = { adult: "adult", name: "guardianName", email: "guardianEmail", phone: "guardianPhone" } as const;

/** The guardian block as a blank form sends it: the site's widget always sends it, so the server checks it. */
export const GUARDIAN_BLOCK = { [GUARDIAN_FIELDS.name]: "", [GUARDIAN_FIELDS.email]: "", [GUARDIAN_FIELDS.phone]: "" } as const;

/** Whether a request carries the guardian block at all (the site's own forms always send it; the spec's table has none). */
export function sendsGuardianBlock(values: Record<string, unknown>): boolean {
  return Object.values(GUARDIAN_FIELDS).some((k) => k in values);
}

type GuardianRule = "required" | "later";

/**
 * Step 1's schema for one event: every field and rule of section 5, the day choice checked against the package.
 * `guardian: "later"`: a JSON call of the spec's shape, which sends no guardian block (sendsGuardianBlock), registers
 * with the contact missing, asked for afterwards; the site's own forms always send the block and have it checked.
 * Made once per distinct set of packages, days and guardian rule (building a zod schema costs far more than a parse:
 * it was a tenth of a hold's CPU) and reused for every form and page of that event; the schema reads only the
 * packages' codes and day counts and the days' ids.
 */
export function registrationSchema(event: RegistrationEventFacts, opts: { guardian?: GuardianRule } = {}): ReturnType<typeof buildRegistrationSchema> {
  const guardian = opts.guardian ?? "required";
  const key = `${event.packages.map((p) => `${p.code}:${p.dayCount}`).join(",")}|${event.days.map((d) => d.id).join(",")}|${guardian}`;
  let schema = schemasBySet.get(key);
  if (!schema) {
    if (schemasBySet.size >= 500) schemasBySet.clear();
    schema = buildRegistrationSchema({ packages: event.packages.map((p) => ({ ...p })), days: event.days.map((d) => ({ ...d })) }, guardian);
    schemasBySet.set(key, schema);
  }
  return schema;
}
const schemasBySet = new Map<string, ReturnType<typeof buildRegistrationSchema>>();

function buildRegistrationSchema(event: RegistrationEventFacts, guardian: GuardianRule) {
  const askLater = () => guardian === "later";
  const codes = packageOptions(event).map((p) => p.code);
  const dayShape = Object.fromEntries(event.days.map((_, i) => [dayField(i), z.optional(z.unknown())]));
  const siblingNames = [...SIBLING_FIELDS, ...event.days.map((_, i) => dayField(i))];
  const siblingShape = Object.fromEntries(
    Array.from({ length: MAX_SIBLINGS - 1 }, (_, i) => siblingNames.map((name) => [siblingField(i + 2, name), z.optional(z.unknown())] as const)).flat(),
  );
  const sibling = buildSiblingSchema(event);
  const fields = z
    .object({
      formSessionId: formSessionIdSchema,
      registrationType: z.pipe(
        z.transform((v) => (v === undefined || v === null || v === "" ? DEFAULT_PACKAGE : v)),
        z.string({ error: REGISTRATION_ERRORS.packageUnknown }).check(z.refine((v) => (codes as string[]).includes(v), REGISTRATION_ERRORS.packageUnknown)),
      ),
      ...dayShape,
      [SIBLINGS_FIELD]: z.optional(z.unknown()),
      ...siblingShape,
      firstName: required(100),
      lastName: required(100),
      email: email(),
      phone: phone(),
      grade: required(40),
      gender: z.unknown().check(z.refine((v) => (GENDERS as readonly unknown[]).includes(v), REGISTRATION_MESSAGES.required)),
      schoolName: required(160),
      clubName: optional(160),
      tShirtSize: z.pipe(
        z.transform((v) => (v === "" || v === null ? undefined : v)),
        z.optional(z.enum(SHIRT_SIZES, "Please choose one of the listed sizes")),
      ),
      emergencyContactName: required(160),
      emergencyContactPhone: phone(),
      specialRequirements: optional(2000, "multi"),
      adult: z.optional(z.unknown()),
      guardianName: optional(160),
      guardianEmail: optional(254),
      guardianPhone: optional(40),
      agrees: z.unknown().check(z.refine(isChecked, REGISTRATION_MESSAGES.agreement)),
    })
    // The day choice is checked even while other fields are wrong, so every message shows at once.
    .check(
      z.superRefine(
        (raw, ctx) => {
          const values = raw as Record<string, unknown>;
          const code = typeof values.registrationType === "string" && values.registrationType ? values.registrationType : DEFAULT_PACKAGE;
          const pkg = findPackage(event, code);
          if (!pkg || coversEveryDay(pkg, event)) return;
          const chosen = event.days.filter((_, i) => isChecked(values[dayField(i)])).length;
          if (chosen !== pkg.dayCount) ctx.addIssue({ code: "custom", path: ["days"], message: dayChoiceMessage(pkg.dayCount) });
        },
        { when: () => true },
      ),
      // Each additional athlete's own fields, with its own day choice, reported under its own names (sibling2_firstName).
      z.superRefine(
        (raw, ctx) => {
          const values = raw as Record<string, unknown>;
          const count = siblingCount(values);
          if (count === null) return void ctx.addIssue({ code: "custom", path: [SIBLINGS_FIELD], message: SIBLING_TEXT.tooMany });
          for (let athlete = 2; athlete <= count + 1; athlete++) {
            const checked = z.safeParse(sibling, siblingValues(values, athlete, event));
            if (checked.success) continue;
            for (const issue of checked.error.issues) ctx.addIssue({ code: "custom", path: [siblingField(athlete, String(issue.path[0] ?? "firstName"))], message: issue.message });
          }
        },
        { when: () => true },
      ),
      // An athlete under 18 (the box "18 or older" not ticked) needs a parent or guardian: name, e-mail and phone.
      z.superRefine(
        (raw, ctx) => {
          const values = raw as Record<string, unknown>;
          if (isChecked(values.adult) || askLater()) return;
          for (const [name, rule] of [["guardianName", required(160)], ["guardianEmail", email()], ["guardianPhone", phone()]] as const) {
            const checked = z.safeParse(rule, values[name] ?? "");
            if (!checked.success) ctx.addIssue({ code: "custom", path: [name], message: checked.error.issues[0]?.message ?? REGISTRATION_MESSAGES.required });
          }
        },
        { when: () => true },
      ),
    );
  return z.pipe(
    fields,
    z.transform((v: z.output<typeof fields>): IndividualRegistration => {
      const pkg = findPackage(event, v.registrationType)!;
      const values = v as Record<string, unknown>;
      const chosen = event.days.filter((_, i) => isChecked(values[dayField(i)])).map((d) => d.id);
      return {
        formSessionId: v.formSessionId,
        registrationType: pkg.code,
        dayIds: attendedDayIds(event, pkg, chosen),
        firstName: v.firstName,
        lastName: v.lastName,
        email: v.email,
        phone: v.phone,
        grade: v.grade,
        gender: v.gender as IndividualRegistration["gender"],
        schoolName: v.schoolName,
        clubName: v.clubName,
        tShirtSize: v.tShirtSize,
        emergencyContactName: v.emergencyContactName,
        emergencyContactPhone: v.emergencyContactPhone,
        specialRequirements: v.specialRequirements,
        guardian: isChecked(v.adult) || askLater() ? null : { name: v.guardianName ?? "", email: v.guardianEmail ?? "", phone: v.guardianPhone ?? "" },
        ...(askLater() ? { guardianMissing: true as const } : {}),
        agrees: true,
        ...siblingsOf(values, sibling, event),
      };
    }),
  );
}

/** One additional athlete's values under the plain names its schema reads (firstName, day1...). */
function siblingValues(values: Record<string, unknown>, athlete: number, event: RegistrationEventFacts): Record<string, unknown> {
  const names = [...SIBLING_FIELDS, ...event.days.map((_, i) => dayField(i))];
  return Object.fromEntries(names.map((name) => [name, values[siblingField(athlete, name)]]));
}

/** An additional athlete's schema: the first athlete's rules for the fields it has of its own. */
function buildSiblingSchema(event: RegistrationEventFacts) {
  const codes = packageOptions(event).map((p) => p.code);
  const fields = z.object({
    registrationType: z.pipe(
      z.transform((v) => (v === undefined || v === null || v === "" ? DEFAULT_PACKAGE : v)),
      z.string({ error: REGISTRATION_ERRORS.packageUnknown }).check(z.refine((v) => (codes as string[]).includes(v), REGISTRATION_ERRORS.packageUnknown)),
    ),
    ...Object.fromEntries(event.days.map((_, i) => [dayField(i), z.optional(z.unknown())])),
    firstName: required(100),
    lastName: required(100),
    grade: required(40),
    gender: z.unknown().check(z.refine((v) => (GENDERS as readonly unknown[]).includes(v), REGISTRATION_MESSAGES.required)),
    schoolName: required(160),
    clubName: optional(160),
    tShirtSize: z.pipe(z.transform((v) => (v === "" || v === null ? undefined : v)), z.optional(z.enum(SHIRT_SIZES, "Please choose one of the listed sizes"))),
    specialRequirements: optional(2000, "multi"),
  });
  return z.pipe(
    fields.check(
      z.superRefine(
        (raw, ctx) => {
          const values = raw as Record<string, unknown>;
          const pkg = findPackage(event, typeof values.registrationType === "string" && values.registrationType ? values.registrationType : DEFAULT_PACKAGE);
          if (!pkg || coversEveryDay(pkg, event)) return;
          const chosen = event.days.filter((_, i) => isChecked(values[dayField(i)])).length;
          if (chosen !== pkg.dayCount) ctx.addIssue({ code: "custom", path: ["days"], message: dayChoiceMessage(pkg.dayCount) });
        },
        { when: () => true },
      ),
    ),
    z.transform((v: z.output<typeof fields>): SiblingEntry => {
      const pkg = findPackage(event, v.registrationType)!;
      const values = v as Record<string, unknown>;
      const chosen = event.days.filter((_, i) => isChecked(values[dayField(i)])).map((d) => d.id);
      return {
        registrationType: pkg.code,
        dayIds: attendedDayIds(event, pkg, chosen),
        firstName: v.firstName,
        lastName: v.lastName,
        grade: v.grade,
        gender: v.gender as SiblingEntry["gender"],
        schoolName: v.schoolName,
        clubName: v.clubName,
        tShirtSize: v.tShirtSize,
        specialRequirements: v.specialRequirements,
      };
    }),
  );
}

/** The additional athletes of valid values (none for the spec's one-athlete form: the key is left out). */
function siblingsOf(values: Record<string, unknown>, schema: ReturnType<typeof buildSiblingSchema>, event: RegistrationEventFacts): { siblings?: SiblingEntry[] } {
  const count = siblingCount(values) ?? 0;
  if (count === 0) return {};
  return { siblings: Array.from({ length: count }, (_, i) => z.parse(schema, siblingValues(values, i + 2, event))) };
}

/** The form values that step 1 shows again (Back from step 2, a re-render after errors): strings and checkboxes only. */
export function formValuesOf(r: IndividualRegistration, event: RegistrationEventFacts): Record<string, string> {
  const values: Record<string, string> = {
    formSessionId: r.formSessionId,
    registrationType: r.registrationType,
    firstName: r.firstName,
    lastName: r.lastName,
    email: r.email,
    phone: r.phone,
    grade: r.grade,
    gender: r.gender,
    schoolName: r.schoolName,
    clubName: r.clubName ?? "",
    tShirtSize: r.tShirtSize ?? "",
    emergencyContactName: r.emergencyContactName,
    emergencyContactPhone: r.emergencyContactPhone,
    specialRequirements: r.specialRequirements ?? "",
    // A guardian still missing is asked for: the box "18 or older" is not ticked for the registrant.
    ...(r.guardian ? { guardianName: r.guardian.name, guardianEmail: r.guardian.email, guardianPhone: r.guardian.phone } : r.guardianMissing ? {} : { adult: "on" }),
    agrees: "on",
  };
  event.days.forEach((d, i) => {
    if (r.dayIds.includes(d.id)) values[dayField(i)] = "on";
  });
  for (const [i, s] of (r.siblings ?? []).entries()) Object.assign(values, siblingFormValues(i + 2, s, event));
  if (r.siblings?.length) values[SIBLINGS_FIELD] = String(r.siblings.length);
  return values;
}

/** One additional athlete's form values (Back from step 2, a reload). */
export function siblingFormValues(athlete: number, s: SiblingEntry, event: RegistrationEventFacts): Record<string, string> {
  const values: Record<string, string> = {};
  const put = (name: string, v: string | undefined) => {
    values[siblingField(athlete, name)] = v ?? "";
  };
  put("registrationType", s.registrationType);
  put("firstName", s.firstName);
  put("lastName", s.lastName);
  put("grade", s.grade);
  put("gender", s.gender);
  put("schoolName", s.schoolName);
  put("clubName", s.clubName);
  put("tShirtSize", s.tShirtSize);
  put("specialRequirements", s.specialRequirements);
  event.days.forEach((d, i) => {
    if (s.dayIds.includes(d.id)) values[siblingField(athlete, dayField(i))] = "on";
  });
  return values;
}

/** The contact fields' rules and messages, for other forms that ask for the same (the waiting list). */
export const contactRules = { required, optional, email, phone } as const;
