/**
 * The college coach request form, built with the field kit and shared by the CoachRequestDialog widget and the
 * /coach-registration page (server-rendered, no JavaScript), and the dialog's state: the spec's messages, an
 * error clearing when its field is edited, the logo checked by its first bytes before anything is sent.
 */
import { useId, useRef, useState, type FormEvent, type ReactNode, type RefObject } from "react";
import { validate, type FieldErrors, type FormValues } from "../src/shared/forms.ts";
import { AREAS_OF_INTEREST, ATHLETES, COACH_MESSAGES, coachRequestSchema, DIVISIONS } from "../src/shared/collegeCoachRequests/schemas.ts";
import { checkLogo, LOGO_FIELD, LOGO_SNIFF_BYTES, LOGO_TYPES, type CoachEvent } from "../src/shared/collegeCoachRequests/rules.ts";
import { Choices, errorFor, Field, Form, SubmitButton } from "../views/components/Form.tsx";
import { apiFetch, ApiError } from "./api.ts";
import { showToast } from "./toast.ts";
import { list, text } from "./useJsonForm.ts";

export const COACH_REQUEST_ENDPOINT = "/api/clinician-request";
export const COACH_PAGE_PATH = "/coach-registration";
const ACCEPT = [".jpg", ".jpeg", ".png", ".gif", ...Object.values(LOGO_TYPES)].join(",");

/** What a kit field needs; `onChange` (the dialog) makes it controlled, without it (the page) it is a plain input. */
export interface FieldBinding {
  name: string;
  value: string;
  error: string | undefined;
  onChange?: (value: string) => void;
  disabled?: boolean;
}
export interface ChoicesBinding {
  name: string;
  value: string[];
  error: string | undefined;
  onChange?: (value: string[]) => void;
  disabled?: boolean;
}

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

export interface CoachRequestFormProps {
  event: CoachEvent;
  field: (name: string) => FieldBinding;
  choices: (name: string) => ChoicesBinding;
  logoError: string | undefined;
  submitting?: boolean;
  onLogo?: (file: File | null) => void;
  logoInputKey?: number;
  formRef?: RefObject<HTMLFormElement | null>;
  onSubmit?: (e: FormEvent<HTMLFormElement>) => void;
  /** Above the fields, e.g. the page's error summary. */
  children?: ReactNode;
  /** Shown under the logo input, e.g. that a logo sent with an invalid form must be attached again. */
  logoNote?: string;
}

/** The form itself: a real multipart post to /coach-registration that the dialog takes over. */
export function CoachRequestForm({ formRef, ...p }: CoachRequestFormProps) {
  const id = useId();
  const f = p.field;
  const logoDescribedBy = [`${id}-logo-hint`, p.logoNote ? `${id}-logo-note` : "", p.logoError ? `${id}-logo-error` : ""].filter(Boolean).join(" ");
  return (
    <Form action={COACH_PAGE_PATH} encType="multipart/form-data" className="message-form coach-form" label="College Coach Registration"
      ref={formRef} onSubmit={p.onSubmit}>
      <input type="hidden" name="eventId" value={p.event.id} />
      {p.children}
      <div className="form-grid">
        <Field {...f("fullName")} label="Full Name" required autoComplete="name" />
        <Field {...f("title")} label="Title/Position" required autoComplete="organization-title" placeholder="e.g., Head Coach" />
      </div>
      <div className="form-grid">
        <Field {...f("collegeName")} label="College/University" required autoComplete="organization" />
        <Field {...f("email")} label="Email" type="email" required autoComplete="email" />
      </div>
      <div className="form-grid">
        <Field {...f("cellPhone")} label="Cell Phone" type="tel" required autoComplete="tel" />
        <Field {...f("schoolPhone")} label="School Phone" type="tel" />
      </div>
      <div className="form-grid">
        <Field {...f("schoolWebsite")} label="School Website" type="url" autoComplete="url" placeholder="https://" />
        <Field {...f("divisionLevel")} label="Division Level" required options={DIVISIONS} placeholder="Select division" />
      </div>
      <div className="form-grid">
        <Field {...f("conference")} label="Conference" required />
        <Field {...f("numberOfAthletes")} label="Number of Athletes" type="number" min={ATHLETES.min} max={ATHLETES.max}
          hint={`Athletes you are recruiting for, ${ATHLETES.min} to ${ATHLETES.max}`} />
      </div>
      <Choices {...p.choices("areasOfInterest")} type="checkbox" legend="Areas of Interest" options={AREAS_OF_INTEREST} />
      <Choices {...p.choices("daysAttending")} type="checkbox" legend="Days Attending" required
        options={p.event.days.map((d) => ({ value: d.date, label: d.label }))} />
      <Field {...f("notes")} label="Notes" multiline placeholder="Anything we should know: athletes you want to see, arrival times..." />
      <div className={`field${p.logoError ? " field-invalid" : ""}`}>
        <label htmlFor={`${id}-logo`}>School Logo</label>
        <p className="field-hint" id={`${id}-logo-hint`}>JPG, PNG or GIF, up to 5 MB.</p>
        <input key={p.logoInputKey ?? 0} id={`${id}-logo`} type="file" name={LOGO_FIELD} accept={ACCEPT} disabled={p.submitting}
          aria-invalid={p.logoError ? true : undefined} aria-describedby={logoDescribedBy}
          onChange={p.onLogo ? (e) => p.onLogo?.(e.target.files?.[0] ?? null) : undefined} />
        {p.logoNote ? <p className="field-hint" id={`${id}-logo-note`}>{p.logoNote}</p> : null}
        {p.logoError ? <p className="field-error" id={`${id}-logo-error`}>{p.logoError}</p> : null}
      </div>
      <SubmitButton busy={p.submitting} busyLabel="Submitting...">Submit Registration</SubmitButton>
    </Form>
  );
}
