/**
 * Step 1's brothers and sisters (issue 43): athletes 2 to 4 of one family, each with its own package, days and
 * details, and the family's prices with the sibling discount. Without JavaScript "Add a sibling" and "Remove" post
 * the form (siblingIntent) and the server sends it back with one athlete more or fewer; with it they change the form
 * in place. Field names are flat (sibling2_firstName) so the form's values stay one record of strings.
 */
import type { MouseEvent } from "react";
import { Field } from "../components/Form.tsx";
import { FamilyRows } from "../components/FamilySummary.tsx";
import type { FieldErrors } from "../src/shared/forms.ts";
import type { EventDay, EventPackage } from "../src/shared/events/types.ts";
import { formatPrice } from "../src/shared/money.ts";
import { GENDERS, SHIRT_SIZES, DEFAULT_PACKAGE, coversEveryDay, dayChoiceHint, dayField, findPackage } from "../src/shared/registrations/rules.ts";
import { packageName } from "../src/shared/registrations/packages.ts";
import {
  MAX_SIBLINGS, SIBLING_INTENT_FIELD, SIBLINGS_FIELD, SIBLING_TEXT, applySiblingIntent, familyPrice, siblingCount, siblingDiscountText, siblingField, NO_SIBLING_DISCOUNT, type SiblingDiscount,
} from "../src/shared/registrations/siblings.ts";

interface SiblingProps {
  packages: EventPackage[];
  days: EventDay[];
  values: Record<string, string>;
  errors: FieldErrors;
  /** The widget runs (a full package then ticks and locks its days). */
  running: boolean;
  set: (name: string, value: string | undefined) => void;
  setAll: (values: Record<string, string>) => void;
  siblingDiscount: SiblingDiscount | undefined;
  /** A waiting-list offer's form: its athletes are the places offered, so no "Add a sibling" or "Remove". */
  fixedAthletes?: number;
}

/** The additional athletes, "Add a sibling", and the family's prices once there are two athletes or more. */
export function SiblingAthletes(props: SiblingProps) {
  const count = siblingCount(props.values) ?? 0;
  const intent = (value: string) => (e: MouseEvent<HTMLButtonElement>) => {
    e.preventDefault();
    props.setAll(applySiblingIntent(props.values, value, props.days.length));
  };
  const offer = siblingDiscountText(props.siblingDiscount ?? NO_SIBLING_DISCOUNT);
  const fixed = props.fixedAthletes;
  return (
    <>
      <input type="hidden" name={SIBLINGS_FIELD} value={String(count)} />
      {Array.from({ length: count }, (_, i) => (
        <Sibling key={i + 2} athlete={i + 2} {...props} onRemove={fixed === undefined ? intent(`remove-sibling-${i + 2}`) : undefined} />
      ))}
      {fixed === undefined ? (
        <div className="card registration-section sibling-add">
          <p className="field-hint">{SIBLING_TEXT.hint}{offer ? ` ${offer}.` : ""}</p>
          {props.errors[SIBLINGS_FIELD] ? <p className="field-error">{props.errors[SIBLINGS_FIELD]}</p> : null}
          {count + 1 < MAX_SIBLINGS ? (
            <button type="submit" className="btn btn-secondary" name={SIBLING_INTENT_FIELD} value="add-sibling" formNoValidate onClick={intent("add-sibling")}>{SIBLING_TEXT.add}</button>
          ) : null}
        </div>
      ) : fixed > 1 || props.errors[SIBLINGS_FIELD] ? (
        <div className="card registration-section sibling-add">
          {fixed > 1 ? <p className="field-hint">{SIBLING_TEXT.offerHint(fixed)}{offer ? ` ${offer}.` : ""}</p> : null}
          {props.errors[SIBLINGS_FIELD] ? <p className="field-error">{props.errors[SIBLINGS_FIELD]}</p> : null}
        </div>
      ) : null}
      {count > 0 ? <FamilyPrices {...props} count={count} /> : null}
    </>
  );
}

/** `onRemove` absent: the athlete cannot be removed (a waiting-list offer's form). */
function Sibling(props: SiblingProps & { athlete: number; onRemove?: (e: MouseEvent<HTMLButtonElement>) => void }) {
  const { athlete, values, errors } = props;
  const name = (field: string) => siblingField(athlete, field);
  const field = (f: string) => ({ name: name(f), value: values[name(f)] ?? "", error: errors[name(f)], onChange: (v: string) => props.set(name(f), v), disabled: false });
  const event = { packages: props.packages, days: props.days };
  const chosen = findPackage(event, values[name("registrationType")] || DEFAULT_PACKAGE);
  const allDays = props.running && chosen ? coversEveryDay(chosen, event) : false;
  return (
    <fieldset className="card registration-section sibling" data-testid={`athlete-${athlete}`}>
      <legend>{SIBLING_TEXT.heading(athlete)}</legend>
      <div className="package-options" role="radiogroup" aria-label={`${SIBLING_TEXT.heading(athlete)}: registration option`}>
        {props.packages.map((p) => (
          <label key={p.code} className="package-option">
            <input type="radio" name={name("registrationType")} value={p.code} checked={(values[name("registrationType")] || DEFAULT_PACKAGE) === p.code}
              onChange={() => props.set(name("registrationType"), p.code)} />
            <span className="package-option-label">{p.label}</span>
            <span className="package-option-price">{formatPrice(p.priceCents)}</span>
          </label>
        ))}
      </div>
      {errors[name("registrationType")] ? <p className="field-error">{errors[name("registrationType")]}</p> : null}
      {props.days.length > 0 ? (
        <div className="sibling-days">
          <p className="field-hint">{dayChoiceHint(event, props.running ? chosen : undefined)}</p>
          <div className="check-grid">
            {props.days.map((d, i) => {
              const day = name(dayField(i));
              return (
                <label key={d.id} className="check">
                  <input type="checkbox" name={day} checked={allDays || values[day] === "on"} disabled={allDays} onChange={(e) => props.set(day, e.target.checked ? "on" : undefined)} />
                  <span>{d.label}</span>
                </label>
              );
            })}
          </div>
          {errors[name("days")] ? <p className="field-error">{errors[name("days")]}</p> : null}
        </div>
      ) : null}
      <div className="field-row">
        <Field {...field("firstName")} label="First Name" required autoComplete="off" />
        <Field {...field("lastName")} label="Last Name" required autoComplete="off" />
      </div>
      <div className="field-row">
        <Field {...field("grade")} label="Grade" required placeholder="e.g., 8th, 11th, etc." />
        <Field {...field("gender")} label="Gender" required options={GENDERS} placeholder="Select gender" />
      </div>
      <div className="field-row">
        <Field {...field("schoolName")} label="School Name" required />
        <Field {...field("clubName")} label="Club Name" placeholder="Wrestling Club" />
      </div>
      <Field {...field("tShirtSize")} label="T-Shirt Size" options={SHIRT_SIZES} placeholder="Select size (optional)" />
      <Field {...field("specialRequirements")} label="Medical conditions, allergies or other needs (optional)" multiline={3} />
      {props.onRemove ? (
        <button type="submit" className="btn btn-secondary" name={SIBLING_INTENT_FIELD} value={`remove-sibling-${athlete}`} formNoValidate onClick={props.onRemove}>{SIBLING_TEXT.remove(athlete)}</button>
      ) : null}
    </fieldset>
  );
}

/** Step 1's family prices: each athlete's package price, the sibling discount, the total (the server charges the same). */
function FamilyPrices(props: SiblingProps & { count: number }) {
  const event = { packages: props.packages, days: props.days };
  const codes = [props.values.registrationType, ...Array.from({ length: props.count }, (_, i) => props.values[siblingField(i + 2, "registrationType")])];
  const pkgs = codes.map((c) => findPackage(event, c || DEFAULT_PACKAGE));
  const price = familyPrice(pkgs.map((p) => p?.priceCents ?? 0), props.siblingDiscount ?? NO_SIBLING_DISCOUNT);
  const names = [props.values.firstName, ...Array.from({ length: props.count }, (_, i) => props.values[siblingField(i + 2, "firstName")])];
  const lines = pkgs.map((p, i) => ({ name: names[i]?.trim() || SIBLING_TEXT.heading(i + 1), packageLabel: packageName(p?.code ?? DEFAULT_PACKAGE), days: [], listCents: price.lines[i]!.listCents, siblingDiscountCents: price.lines[i]!.discountCents }));
  return (
    <section className="card registration-section family-prices" aria-label="Family total">
      <dl className="summary-rows">
        <FamilyRows lines={lines} />
        <div className="summary-total"><dt>{SIBLING_TEXT.total}</dt><dd data-testid="family-total">{formatPrice(price.totalCents)}</dd></div>
      </dl>
    </section>
  );
}
