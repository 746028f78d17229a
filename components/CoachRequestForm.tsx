/**
 * The college coach request form, built with the field kit: the CoachRequestDialog island binds it to its state
 * (widgets/useCoachRequestForm.ts), the /coach-registration page (server-rendered, no JavaScript) to the posted form.
 */
import { useId, type FormEvent, type ReactNode, type RefObject } from "react";
import { AREAS_OF_INTEREST, ATHLETES, DIVISIONS } from "../src/shared/collegeCoachRequests/schemas.ts";
import { LOGO_FIELD, LOGO_TYPES, type CoachEvent } from "../src/shared/collegeCoachRequests/rules.ts";
import { Choices, Field, Form, SubmitButton } from "./Form.tsx";

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
