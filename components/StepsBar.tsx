/** The three steps of an individual registration, shown above the form, the payment and the confirmation. */
const STEPS = ["Registration", "Payment", "Confirmation"] as const;

export function StepsBar({ step }: { step: number }) {
  return (
    <ol className="steps-bar" aria-label="Registration progress">
      {STEPS.map((label, i) => (
        <li key={label} className={i + 1 === step ? "is-current" : i + 1 < step ? "is-done" : undefined} aria-current={i + 1 === step ? "step" : undefined}>
          <span className="steps-bar-number" aria-hidden="true">{i + 1}</span>
          <span>{label}</span>
        </li>
      ))}
    </ol>
  );
}
