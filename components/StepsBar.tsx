/** The steps of an individual registration, shown above the form, the payment and the confirmation. */
const REGISTRATION_STEPS = ["Registration", "Payment", "Confirmation"] as const;

/** A numbered progress bar: the registration's three steps, or another list of steps (the checkout's four). */
export function StepsBar({ step, steps = REGISTRATION_STEPS, label = "Registration progress" }: { step: number; steps?: readonly string[]; label?: string }) {
  return (
    <ol className={steps.length === 3 ? "steps-bar" : `steps-bar steps-bar-${steps.length}`} aria-label={label}>
      {steps.map((name, i) => (
        <li key={name} className={i + 1 === step ? "is-current" : i + 1 < step ? "is-done" : undefined} aria-current={i + 1 === step ? "step" : undefined}>
          <span className="steps-bar-number" aria-hidden="true">{i + 1}</span>
          <span>{name}</span>
        </li>
      ))}
    </ol>
  );
}
