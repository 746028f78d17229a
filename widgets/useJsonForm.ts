/**
 * A widget's side of a form that has a plain post and a JSON twin: the same real <form> the server renders
 * (built with the field kit, components/Form.tsx), taken over for instant feedback. Validated with the
 * shared schema on the first submit, then on every change; the fields are disabled while sending; the JSON
 * answer's fieldErrors (400) land on their fields, anything else shows the failure toast.
 */
import { useEffect, useRef, useState, type FormEvent } from "react";
import type * as z from "zod/mini";
import { validate, type FieldErrors, type FormValues, type FormWidgetProps } from "../src/shared/forms.ts";
import { errorFor } from "../components/Form.tsx";
import { apiFetch, ApiError } from "./api.ts";
import { showToast, type ToastMessage } from "./toast.ts";
import { withScreenValues } from "./formDom.ts";
import { focusFirstInvalid } from "./focus.ts";

export type SendStatus = "idle" | "submitting" | "sent";

export function useJsonForm(opts: { schema: z.core.$ZodType; endpoint: string; initial: FormWidgetProps; failure: ToastMessage }) {
  const [values, setValues] = useState<FormValues>(opts.initial.values);
  const [errors, setErrors] = useState<FieldErrors>(opts.initial.errors);
  const [validateOnChange, setValidateOnChange] = useState(Object.keys(opts.initial.errors).length > 0);
  const [status, setStatus] = useState<SendStatus>(opts.initial.sent ? "sent" : "idle");
  const formRef = useRef<HTMLFormElement>(null);

  // Text typed, pasted or autofilled before the widget started is kept, not wiped by the first render.
  useEffect(() => {
    setValues((v) => withScreenValues(v, formRef.current));
  }, []);

  const check = (next: FormValues): FieldErrors => {
    const result = validate(opts.schema, next);
    return result.ok ? {} : result.errors;
  };

  const showFirstError = () => {
    requestAnimationFrame(() => focusFirstInvalid(formRef.current));
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
    // A pasted or autofilled value may be on the screen without having reached the state.
    const current = withScreenValues(values, formRef.current ?? event.currentTarget);
    if (current !== values) setValues(current);
    const result = validate(opts.schema, current);
    if (!result.ok) {
      setErrors(result.errors);
      showFirstError();
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
        showFirstError();
      } else {
        showToast({ ...opts.failure, variant: "destructive" });
      }
    }
  };

  const disabled = status === "submitting";
  /** What a field of the kit needs: <Field {...f.field("email")} label="Email" />. */
  const field = (name: string) => ({
    name,
    value: text(values[name]),
    error: errorFor(errors, name),
    onChange: (v: string) => setValue(name, v),
    disabled,
  });
  /** What a <Choices> group needs. */
  const choices = (name: string) => ({
    name,
    value: list(values[name]),
    error: errorFor(errors, name),
    onChange: (v: string[]) => setValue(name, v),
    disabled,
  });
  return { values, errors, status, busy: disabled, setValue, onSubmit, formRef, field, choices };
}

export const text = (v: string | string[] | undefined) => (typeof v === "string" ? v : "");
export const list = (v: string | string[] | undefined) => (Array.isArray(v) ? v : typeof v === "string" && v ? [v] : []);
