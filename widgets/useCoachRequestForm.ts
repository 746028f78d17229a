/**
 * The CoachRequestDialog's state for the coach request form (components/CoachRequestForm.tsx): the spec's messages,
 * an error clearing when its field is edited, the logo checked by its first bytes before anything is sent.
 */
import { useRef, useState, type FormEvent } from "react";
import { validate, type FieldErrors, type FormValues } from "../src/shared/forms.ts";
import { COACH_MESSAGES, coachRequestSchema } from "../src/shared/collegeCoachRequests/schemas.ts";
import { checkLogo, LOGO_FIELD, LOGO_SNIFF_BYTES, type CoachEvent } from "../src/shared/collegeCoachRequests/rules.ts";
import { errorFor } from "../components/Form.tsx";
import type { ChoicesBinding, FieldBinding } from "../components/CoachRequestForm.tsx";
import { apiFetch, ApiError } from "./api.ts";
import { showToast } from "./toast.ts";
import { list, text } from "./useJsonForm.ts";

export const COACH_REQUEST_ENDPOINT = "/api/clinician-request";

/** The dialog's state and submit: JSON to the API, or multipart when a logo is attached. */
export function useCoachRequestForm(event: CoachEvent, onSent: () => void) {
  const [values, setValues] = useState<FormValues>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const [submitting, setSubmitting] = useState(false);
  const [logo, setLogo] = useState<File | null>(null);
  const [logoProblem, setLogoProblem] = useState<string | undefined>();
  // A new key gives a fresh, empty file input when the form resets.
  const [logoInputKey, setLogoInputKey] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const schema = coachRequestSchema(event.days.map((d) => d.date));

  const clearError = (name: string) =>
    setErrors((current) => {
      if (!(name in current)) return current;
      const { [name]: _cleared, ...rest } = current;
      return rest;
    });

  const setValue = (name: string, value: string | string[]) => {
    setValues((current) => ({ ...current, [name]: value }));
    clearError(name);
  };

  const chooseLogo = async (file: File | null) => {
    setLogo(file);
    clearError(LOGO_FIELD);
    setLogoProblem(undefined);
    if (!file) return;
    const head = new Uint8Array(await file.slice(0, LOGO_SNIFF_BYTES).arrayBuffer());
    const checked = checkLogo(file.size, head);
    if (!checked.ok) {
      setLogoProblem(checked.message);
      setErrors((current) => ({ ...current, [LOGO_FIELD]: checked.message }));
    }
  };

  const showInvalid = (found: FieldErrors) => {
    setErrors(found);
    showToast({ ...COACH_MESSAGES.validationToast, variant: "destructive" });
    requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>("[aria-invalid='true']")?.focus());
  };

  const reset = () => {
    setValues({});
    setErrors({});
    setLogo(null);
    setLogoProblem(undefined);
    setLogoInputKey((k) => k + 1);
  };

  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (submitting) return;
    const result = validate(schema, values);
    const found: FieldErrors = { ...(result.ok ? {} : result.errors), ...(logoProblem ? { [LOGO_FIELD]: logoProblem } : {}) };
    if (!result.ok || logoProblem) return showInvalid(found);
    setSubmitting(true);
    try {
      if (logo) {
        const form = new FormData();
        form.append("eventId", String(event.id));
        for (const [name, value] of Object.entries(values)) {
          for (const v of Array.isArray(value) ? value : [value]) form.append(name, v);
        }
        form.append(LOGO_FIELD, logo);
        await apiFetch(COACH_REQUEST_ENDPOINT, { method: "POST", form });
      } else {
        await apiFetch(COACH_REQUEST_ENDPOINT, { method: "POST", json: { ...result.data, eventId: event.id } });
      }
      setSubmitting(false);
      reset();
      onSent();
      showToast({ ...COACH_MESSAGES.submitted, variant: "success" });
    } catch (err) {
      setSubmitting(false);
      const fieldErrors = err instanceof ApiError && err.status === 400 ? (err.body?.fieldErrors as FieldErrors | undefined) : undefined;
      if (fieldErrors && Object.keys(fieldErrors).length > 0) showInvalid(fieldErrors);
      else showToast({ ...COACH_MESSAGES.failed, variant: "destructive" });
    }
  };

  const field = (name: string): FieldBinding => ({
    name, value: text(values[name]), error: errorFor(errors, name), onChange: (v) => setValue(name, v), disabled: submitting,
  });
  const choices = (name: string): ChoicesBinding => ({
    name, value: list(values[name]), error: errorFor(errors, name), onChange: (v) => setValue(name, v), disabled: submitting,
  });
  return { errors, submitting, field, choices, chooseLogo, onSubmit, formRef, logoInputKey };
}

