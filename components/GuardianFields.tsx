import type { ReactNode } from "react";
import { Field } from "./Form.tsx";
import { GUARDIAN_TEXT } from "../src/shared/texts.ts";

type Bind = (name: string) => { name: string; value: string; error: string | undefined; onChange?: (v: string) => void; disabled?: boolean };

/**
 * The parent or guardian of an athlete under 18, on the registration form and the manage page: a box for an athlete
 * of 18 or more, then name, e-mail and phone. Without JavaScript (and on the manage page) the fields always show and
 * the server skips them when the box is ticked; the registration widget hides them once the box is ticked.
 */
export function GuardianFields({ field, adult, hideWhenAdult = false, onAdult, boxed = true, children }: {
  field: Bind;
  adult: boolean;
  hideWhenAdult?: boolean;
  onAdult?: (on: boolean) => void;
  /** A card of its own (the registration form), or a plain group inside another card (the manage page). */
  boxed?: boolean;
  children?: ReactNode;
}) {
  return (
    <fieldset className={`${boxed ? "card registration-section" : "fieldset"} guardian-fields`}>
      <legend>{GUARDIAN_TEXT.legend}</legend>
      <p className="field-hint">{GUARDIAN_TEXT.hint}</p>
      <label className="check guardian-adult">
        <input type="checkbox" name="adult" {...(onAdult ? { checked: adult, onChange: (e) => onAdult(e.target.checked) } : { defaultChecked: adult })} />
        <span>{GUARDIAN_TEXT.adult}</span>
      </label>
      {hideWhenAdult && adult ? null : (
        <div className="field-row">
          <Field {...field("guardianName")} label={GUARDIAN_TEXT.name} required={!adult} autoComplete="off" />
          <Field {...field("guardianEmail")} label={GUARDIAN_TEXT.email} type="email" required={!adult} autoComplete="off" />
          <Field {...field("guardianPhone")} label={GUARDIAN_TEXT.phone} type="tel" required={!adult} autoComplete="off" />
        </div>
      )}
      {children}
    </fieldset>
  );
}
