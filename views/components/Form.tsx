import { createContext, useContext, type ReactNode } from "react";
import type { FormState } from "../../src/http/forms.ts";

/** The CSRF token of the page being rendered; renderPage provides it. */
export const CsrfContext = createContext("");

export function Form({ action, children, className, id, label }: { action: string; children: ReactNode; className?: string; id?: string; label?: string }) {
  const token = useContext(CsrfContext);
  return (
    <form method="post" action={action} className={className} id={id} aria-label={label} noValidate>
      <input type="hidden" name="_csrf" value={token} />
      {children}
    </form>
  );
}

/** HTML name for a field path: "athletes.0.firstName" -> "athletes[0][firstName]" (parsed back by the body parser). */
export function fieldName(path: string): string {
  const [first, ...rest] = path.split(".");
  return `${first}${rest.map((p) => `[${p}]`).join("")}`;
}

export function fieldValue(state: FormState, path: string): string {
  let v: unknown = state.values;
  for (const part of path.split(".")) v = v && typeof v === "object" ? (v as Record<string, unknown>)[part] : undefined;
  return v === undefined || v === null ? "" : String(v);
}

const fieldId = (path: string) => `f-${path.replace(/\./g, "-")}`;

interface FieldProps {
  name: string;
  label: string;
  state: FormState;
  type?: "text" | "email" | "tel" | "number" | "url" | "date";
  required?: boolean;
  autoComplete?: string;
  placeholder?: string;
  disabled?: boolean;
}

export function ErrorText({ id, message }: { id: string; message: string | undefined }) {
  return message ? <p className="field-error" id={id}>{message}</p> : null;
}

export function TextField({ name, label, state, type = "text", required, autoComplete, placeholder, disabled }: FieldProps) {
  const id = fieldId(name);
  const error = state.errors[name];
  return (
    <div className={`field${error ? " field-invalid" : ""}`}>
      <label htmlFor={id}>{label}{required ? <span aria-hidden="true"> *</span> : null}</label>
      <input id={id} name={fieldName(name)} type={type} defaultValue={fieldValue(state, name)} required={required}
        autoComplete={autoComplete} placeholder={placeholder} disabled={disabled}
        aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} />
      <ErrorText id={`${id}-error`} message={error} />
    </div>
  );
}

export function TextArea({ name, label, state, required, placeholder, rows = 5, disabled }: Omit<FieldProps, "type"> & { rows?: number }) {
  const id = fieldId(name);
  const error = state.errors[name];
  return (
    <div className={`field${error ? " field-invalid" : ""}`}>
      <label htmlFor={id}>{label}{required ? <span aria-hidden="true"> *</span> : null}</label>
      <textarea id={id} name={fieldName(name)} rows={rows} defaultValue={fieldValue(state, name)} required={required}
        placeholder={placeholder} disabled={disabled}
        aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} />
      <ErrorText id={`${id}-error`} message={error} />
    </div>
  );
}

export function SelectField({ name, label, state, options, required, placeholder }: Omit<FieldProps, "type"> & { options: { value: string; label: string }[] }) {
  const id = fieldId(name);
  const error = state.errors[name];
  return (
    <div className={`field${error ? " field-invalid" : ""}`}>
      <label htmlFor={id}>{label}{required ? <span aria-hidden="true"> *</span> : null}</label>
      <select id={id} name={fieldName(name)} defaultValue={fieldValue(state, name)} required={required}
        aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined}>
        {placeholder ? <option value="">{placeholder}</option> : null}
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
      <ErrorText id={`${id}-error`} message={error} />
    </div>
  );
}

/** A form-level error summary, announced to screen readers. */
export function FormErrors({ state }: { state: FormState }) {
  const count = Object.keys(state.errors).length;
  if (count === 0) return null;
  return (
    <div className="form-errors" role="alert">
      <p>{state.errors._form ?? "Please correct the highlighted fields."}</p>
    </div>
  );
}
