/**
 * The field kit: every form on the site, rendered by the server or by a widget, is built from these parts, so
 * labels, hints, errors and their aria wiring are the same everywhere (README: "How to add a feature").
 *
 *   <Form action="/contact" label="Send us a message">              a real <form method="post"> with the CSRF field
 *     <FormErrors errors={errors} />                                    the summary, announced when it appears
 *     <Field {...bind("email")} label="Email" type="email" required />
 *     <Field {...bind("message")} label="Message" multiline hint="At least 10 characters" />
 *     <Field {...bind("quantity")} label="Quantity" options={QUANTITIES} placeholder="Select quantity" />
 *     <Choices {...bindList("needs")} legend="Apparel Needs" type="checkbox" options={NEEDS} />
 *     <SubmitButton busy={sending} busyLabel="Sending...">Send Message</SubmitButton>
 *   </Form>
 *
 * `bind(name)` gives a field its name, value and error: `stateField(form, name)` in a server form (the values
 * and errors of a post re-rendered without JavaScript), `useJsonForm(...).field(name)` in a widget (which adds
 * onChange and disabled). `bindList` is the same for a checkbox group: `stateChoices` and `.choices(name)`.
 * With `onChange` a field is controlled; without it, `value` is only the initial value.
 */
import { createContext, useContext, useId, type FormEvent, type ReactNode, type Ref } from "react";
import type { FieldErrors, FormState } from "../src/shared/forms.ts";
import { FORM_TEXT, fieldLabel } from "../src/shared/texts.ts";

/** The CSRF token of the page being rendered: renderPage provides it; a widget provides its csrfToken prop. */
export const CsrfContext = createContext("");

/**
 * A form's prefix for its controls' ids, so its error summary can link to each field (`#{prefix}{name}`) before the
 * fields have rendered. Empty outside a form of the kit: a field then keeps its own generated id.
 */
const FieldIdContext = createContext("");

/** The id of a form's control for a field path: what the error summary's links point at. */
export function useFieldId(name: string): string {
  const prefix = useContext(FieldIdContext);
  const own = useId();
  return prefix ? `${prefix}${name.replace(/[^A-Za-z0-9_-]/g, "-")}` : own;
}

/** A hand-made control inside a form of the kit, given the id its error summary links to: `{(id) => <input id={id} />}`. */
export function WithFieldId({ name, children }: { name: string; children: (id: string) => ReactNode }) {
  return <>{children(useFieldId(name))}</>;
}

/** Gives the fields inside a hand-made form (not `<Form>`) linkable ids. */
export function FieldIdScope({ children }: { children: ReactNode }) {
  const id = useId().replace(/[^A-Za-z0-9]/g, "");
  return <FieldIdContext value={`f${id}-`}>{children}</FieldIdContext>;
}

export function Form({ ref, ...props }: {
  action: string;
  children: ReactNode;
  className?: string;
  id?: string;
  /** The form's accessible name. */
  label?: string;
  /** Only for a form with a file input. */
  encType?: "multipart/form-data";
  onSubmit?: (event: FormEvent<HTMLFormElement>) => void;
  ref?: Ref<HTMLFormElement>;
}) {
  const token = useContext(CsrfContext);
  return (
    <form method="post" action={props.action} encType={props.encType} className={props.className} id={props.id} aria-label={props.label} noValidate
      onSubmit={props.onSubmit} ref={ref}>
      <input type="hidden" name="_csrf" value={token} />
      <FieldIdScope>{props.children}</FieldIdScope>
    </form>
  );
}

/** HTML name for a field path: "athletes.0.firstName" -> "athletes[0][firstName]" (parsed back by the body parser). */
export function fieldName(path: string): string {
  const [first, ...rest] = path.split(".");
  return `${first}${rest.map((p) => `[${p}]`).join("")}`;
}

/** A field's message: its own, or the first of its items ("apparelNeeds.1" for a list of checkboxes). */
export function errorFor(errors: FieldErrors, name: string): string | undefined {
  return errors[name] ?? Object.entries(errors).find(([key]) => key.startsWith(`${name}.`))?.[1];
}

/** A server form's field: the value kept from the post and its error. */
export function stateField(state: FormState, name: string): { name: string; value: string; error: string | undefined } {
  let v: unknown = state.values;
  for (const part of name.split(".")) v = v && typeof v === "object" ? (v as Record<string, unknown>)[part] : undefined;
  return { name, value: typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? String(v) : "", error: errorFor(state.errors, name) };
}

/** A server form's checkbox group: the values kept from the post and its error. */
export function stateChoices(state: FormState, name: string): { name: string; value: string[]; error: string | undefined } {
  const v = state.values[name];
  const value = Array.isArray(v) ? v.map(String) : typeof v === "string" && v ? [v] : [];
  return { name, value, error: errorFor(state.errors, name) };
}

type Option = string | { value: string; label: string };
const optionValue = (o: Option) => (typeof o === "string" ? o : o.value);
const optionLabel = (o: Option) => (typeof o === "string" ? o : o.label);

/** Ids of the hint and error under a field, for aria-describedby. */
function describedBy(id: string, hint: ReactNode, error: string | undefined): string | undefined {
  return [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
}

function HintAndError({ id, hint, error }: { id: string; hint: ReactNode; error: string | undefined }) {
  return (
    <>
      {hint ? <p className="field-hint" id={`${id}-hint`}>{hint}</p> : null}
      {error ? <p className="field-error" id={`${id}-error`}>{error}</p> : null}
    </>
  );
}

export interface FieldProps {
  /** The field's path in the form's values ("email", "athletes.0.firstName"). */
  name: string;
  label: ReactNode;
  value?: string;
  error?: string | undefined;
  /** A short help line under the label (the accepted format or range). */
  hint?: ReactNode;
  /** Makes the field controlled (widgets). */
  onChange?: (value: string) => void;
  disabled?: boolean;
  required?: boolean;
  type?: "text" | "email" | "tel" | "number" | "url" | "date";
  /** A <textarea> (rows: 6, or the number given). */
  multiline?: boolean | number;
  /** A <select> of these options; `placeholder` is then its empty first option. */
  options?: readonly Option[];
  placeholder?: string;
  autoComplete?: string;
  min?: number | string;
  max?: number | string;
}

/** One labelled control (input, textarea or select) with its hint and error. */
export function Field(props: FieldProps) {
  const id = useFieldId(props.name);
  const { error, hint, onChange } = props;
  const common = {
    id,
    name: fieldName(props.name),
    disabled: props.disabled,
    required: props.required,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy(id, hint, error),
    ...(onChange ? { value: props.value ?? "" } : { defaultValue: props.value }),
  } as const;
  const change = onChange ? (e: { target: { value: string } }) => onChange(e.target.value) : undefined;
  let control: ReactNode;
  if (props.options) {
    control = (
      <select {...common} onChange={change}>
        {props.placeholder !== undefined ? <option value="">{props.placeholder}</option> : null}
        {props.options.map((o) => <option key={optionValue(o)} value={optionValue(o)}>{optionLabel(o)}</option>)}
      </select>
    );
  } else if (props.multiline) {
    control = <textarea {...common} rows={typeof props.multiline === "number" ? props.multiline : 6} placeholder={props.placeholder} onChange={change} />;
  } else {
    control = (
      <input {...common} type={props.type ?? "text"} autoComplete={props.autoComplete} placeholder={props.placeholder}
        min={props.min} max={props.max} onChange={change} />
    );
  }
  return (
    <div className={`field${error ? " field-invalid" : ""}`}>
      <label htmlFor={id}>
        {props.label}
        {props.required ? <span aria-hidden="true"> *</span> : null}
      </label>
      {control}
      <HintAndError id={id} hint={hint} error={error} />
    </div>
  );
}

interface ChoicesCommon {
  name: string;
  legend: ReactNode;
  options: readonly Option[];
  error?: string | undefined;
  hint?: ReactNode;
  disabled?: boolean;
  required?: boolean;
}

/**
 * Checkboxes hold a list of values, radio buttons one. With `onChange` the group is controlled (widgets:
 * `{...f.choices(name)}` for checkboxes, `{...f.field(name)}` for radio buttons).
 */
export type ChoicesProps = ChoicesCommon &
  (
    | { type: "checkbox"; value?: readonly string[]; onChange?: (value: string[]) => void }
    | { type: "radio"; value?: string; onChange?: (value: string) => void }
  );

/** A group of checkboxes or radio buttons in a fieldset, with its hint and error. */
export function Choices(props: ChoicesProps) {
  const id = useFieldId(props.name);
  const { error, hint } = props;
  const checked: readonly string[] = props.type === "radio" ? (props.value ? [props.value] : []) : (props.value ?? []);
  const controlled = props.onChange !== undefined;
  const toggle = (value: string, on: boolean) => {
    if (props.type === "radio") props.onChange?.(value);
    else props.onChange?.(on ? [...checked, value] : checked.filter((v) => v !== value));
  };
  return (
    <fieldset className="fieldset" id={id} aria-describedby={describedBy(id, hint, error)}>
      <legend>
        {props.legend}
        {props.required ? <span aria-hidden="true"> *</span> : null}
      </legend>
      <div className="check-grid">
        {props.options.map((o) => {
          const value = optionValue(o);
          const on = checked.includes(value);
          return (
            <label className="check" key={value}>
              <input type={props.type} name={fieldName(props.name)} value={value} disabled={props.disabled}
                {...(controlled ? { checked: on, onChange: (e) => toggle(value, e.target.checked) } : { defaultChecked: on })} />
              <span>{optionLabel(o)}</span>
            </label>
          );
        })}
      </div>
      <HintAndError id={id} hint={hint} error={error} />
    </fieldset>
  );
}

/**
 * The form's summary, announced to screen readers: the form-level message, then one link per field in error (to
 * the field itself). `focus`: a form re-rendered by the server after a failed post opens here, focused and in view
 * (autofocus works without JavaScript), so nobody has to scroll to learn the save failed.
 */
export function FormErrors({ errors, focus = false, labels = {} }: { errors: FieldErrors; focus?: boolean; labels?: Record<string, string> }) {
  const prefix = useContext(FieldIdContext);
  if (Object.keys(errors).length === 0) return null;
  const fields = Object.entries(errors).filter(([name]) => name !== "_form");
  return (
    <div className="form-errors" role="alert" tabIndex={-1} autoFocus={focus}>
      <p>{errors._form ?? FORM_TEXT.fixFields}</p>
      {fields.length > 0 ? (
        <ul>
          {fields.map(([name, message]) => {
            const label = labels[name] ?? fieldLabel(name);
            return <li key={name}>{prefix ? <a href={`#${prefix}${name.replace(/[^A-Za-z0-9_-]/g, "-")}`}>{`${label}: ${message}`}</a> : `${label}: ${message}`}</li>;
          })}
        </ul>
      ) : null}
    </div>
  );
}

export function SubmitButton({ busy = false, busyLabel, children, className = "btn btn-primary", disabled = false }: {
  busy?: boolean;
  busyLabel?: string;
  children: ReactNode;
  className?: string;
  disabled?: boolean;
}) {
  return (
    <button type="submit" className={className} disabled={busy || disabled} aria-disabled={busy || undefined}>
      {busy && busyLabel ? busyLabel : children}
    </button>
  );
}
