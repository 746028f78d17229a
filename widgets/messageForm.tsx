/**
 * Shared by the contact, quote and newsletter islands: the same real <form> the server renders, taken over
 * for instant feedback. Validated on first submit, then again on every change; inputs disabled while sending.
 */
import { useId, useRef, useState, type FormEvent, type ReactNode } from "react";
import type { z } from "zod";
import { validate, type FieldErrors } from "../src/http/forms.ts";
import { apiFetch, ApiError } from "./api.ts";
import { showToast, type ToastMessage } from "./toast.ts";

export type FormValues = Record<string, string | string[]>;
export type SendStatus = "idle" | "submitting" | "sent";

export interface MessageFormProps {
  csrfToken: string;
  values: FormValues;
  errors: FieldErrors;
  sent: boolean;
}

export function useMessageForm(opts: {
  schema: z.ZodType;
  endpoint: string;
  initial: MessageFormProps;
  failure: ToastMessage;
}) {
  const [values, setValues] = useState<FormValues>(opts.initial.values);
  const [errors, setErrors] = useState<FieldErrors>(opts.initial.errors);
  const [validateOnChange, setValidateOnChange] = useState(Object.keys(opts.initial.errors).length > 0);
  const [status, setStatus] = useState<SendStatus>(opts.initial.sent ? "sent" : "idle");
  const formRef = useRef<HTMLFormElement>(null);

  const check = (next: FormValues): FieldErrors => {
    const result = validate(opts.schema, next);
    return result.ok ? {} : result.errors;
  };

  const focusFirstInvalid = () => {
    requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>("[aria-invalid='true']")?.focus());
  };

  const setValue = (name: string, value: string | string[]) => {
    const next = { ...values, [name]: value };
    setValues(next);
    if (validateOnChange) setErrors(check(next));
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (status === "submitting") return;
    setValidateOnChange(true);
    const result = validate(opts.schema, values);
    if (!result.ok) {
      setErrors(result.errors);
      focusFirstInvalid();
      return;
    }
    setErrors({});
    setStatus("submitting");
    try {
      await apiFetch(opts.endpoint, { method: "POST", json: result.data });
      setStatus("sent");
    } catch (err) {
      setStatus("idle");
      const fieldErrors = err instanceof ApiError && err.status === 400 ? (err.body?.fieldErrors as FieldErrors | undefined) : undefined;
      if (fieldErrors && Object.keys(fieldErrors).length > 0) {
        setErrors(fieldErrors);
        focusFirstInvalid();
      } else {
        showToast({ ...opts.failure, variant: "destructive" });
      }
    }
  };

  const disabled = status === "submitting";
  /** The props a <Field> needs for one named value. */
  const field = (name: string) => ({
    name,
    value: text(values[name]),
    error: errors[name],
    onChange: (v: string) => setValue(name, v),
    disabled,
  });
  return { values, errors, status, setValue, onSubmit, formRef, disabled, field };
}

/** One labelled input with its error, the markup and classes of the server's form fields. */
export function Field(props: {
  name: string;
  label: string;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
  disabled: boolean;
  type?: "text" | "email" | "tel";
  required?: boolean;
  autoComplete?: string;
  placeholder?: string;
  multiline?: boolean;
}) {
  const id = useId();
  const describedBy = props.error ? `${id}-error` : undefined;
  const common = {
    id,
    name: props.name,
    value: props.value,
    disabled: props.disabled,
    required: props.required,
    placeholder: props.placeholder,
    "aria-invalid": props.error ? true : undefined,
    "aria-describedby": describedBy,
  } as const;
  return (
    <div className={`field${props.error ? " field-invalid" : ""}`}>
      <label htmlFor={id}>
        {props.label}
        {props.required ? <span aria-hidden="true"> *</span> : null}
      </label>
      {props.multiline ? (
        <textarea {...common} rows={6} onChange={(e) => props.onChange(e.target.value)} />
      ) : (
        <input {...common} type={props.type ?? "text"} autoComplete={props.autoComplete} onChange={(e) => props.onChange(e.target.value)} />
      )}
      {props.error ? <p className="field-error" id={describedBy}>{props.error}</p> : null}
    </div>
  );
}

export function FormSummary({ errors }: { errors: FieldErrors }) {
  if (Object.keys(errors).length === 0) return null;
  return (
    <div className="form-errors" role="alert">
      <p>{errors._form ?? "Please correct the highlighted fields."}</p>
    </div>
  );
}

export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

export const text = (v: string | string[] | undefined) => (typeof v === "string" ? v : "");
export const list = (v: string | string[] | undefined) => (Array.isArray(v) ? v : typeof v === "string" && v ? [v] : []);

export function SubmitButton({ status, idle, busy }: { status: SendStatus; idle: ReactNode; busy: string }) {
  return (
    <button type="submit" className="btn btn-primary" disabled={status === "submitting"} aria-disabled={status === "submitting" || undefined}>
      {status === "submitting" ? busy : idle}
    </button>
  );
}
