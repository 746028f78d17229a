import type { FormState } from "../../../src/shared/forms.ts";

/** A package a paid registration can move to, with the line that says what the move costs or gives back. */
export interface PackageMove {
  code: string;
  label: string;
  /** "Full Camp (3 Days) ($299.00): you pay $61.00 more" */
  line: string;
  everyDay: boolean;
  dayCount: number;
}

/**
 * The new package and its days, as the registration form asks them (field names `registrationType` and `day1`...),
 * for a move to a smaller package (the manage page) or a bigger one (the upgrade page).
 */
export function PackageAndDays({ moves, days, form, idPrefix }: { moves: PackageMove[]; days: { id: number; label: string }[]; form: FormState; idPrefix: string }) {
  const chosen = typeof form.values.registrationType === "string" ? form.values.registrationType : "";
  const errors = form.errors;
  return (
    <>
      <fieldset className="fieldset" aria-describedby={errors.registrationType ? `${idPrefix}-package-error` : undefined}>
        <legend>New package</legend>
        <div className="check-grid">
          {moves.map((m) => (
            <label className="check" key={m.code}>
              <input type="radio" name="registrationType" value={m.code} defaultChecked={chosen === m.code} />
              <span>{m.line}</span>
            </label>
          ))}
        </div>
        {errors.registrationType ? <p className="field-error" id={`${idPrefix}-package-error`}>{errors.registrationType}</p> : null}
      </fieldset>
      <fieldset className="fieldset" aria-describedby={errors.days ? `${idPrefix}-days-error` : undefined}>
        <legend>Days</legend>
        <p className="field-hint">{moves.map((m) => (m.everyDay ? `${m.label}: every day` : `${m.label}: tick ${m.dayCount === 1 ? "1 day" : `${m.dayCount} days`}`)).join("; ")}</p>
        <div className="check-grid">
          {days.map((d, i) => (
            <label className="check" key={d.id}>
              <input type="checkbox" name={`day${i + 1}`} defaultChecked={form.values[`day${i + 1}`] === "on"} />
              <span>{d.label}</span>
            </label>
          ))}
        </div>
        {errors.days ? <p className="field-error" id={`${idPrefix}-days-error`}>{errors.days}</p> : null}
      </fieldset>
    </>
  );
}
