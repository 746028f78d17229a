import { CAMP_POLICY_PATHS } from "../src/shared/registrations/agreements.ts";
import { cancellationPolicyLines } from "../src/shared/registrations/changePolicy.ts";

/** Opens in a new tab, so a form half filled in stays as it is. */
const Doc = ({ href, children }: { href: string; children: string }) => (
  <a href={href} target="_blank" rel="noopener">
    {children}
  </a>
);

/** The agreement checkbox's words, each document linked: the individual form (RegistrationSteps). */
export function AgreementWords() {
  return (
    <>
      I agree to the <Doc href="/terms">terms and conditions</Doc>, the camp's <Doc href={CAMP_POLICY_PATHS.waiver}>liability waiver</Doc> and{" "}
      <Doc href={CAMP_POLICY_PATHS.medicalRelease}>medical release</Doc>
    </>
  );
}

/** The cancellation policy's link, under every agreement. */
export function CancellationPolicyNote() {
  return (
    <p className="muted agreement-note">
      Cancellations are refunded under our <Doc href={CAMP_POLICY_PATHS.cancellation}>camp refund and cancellation policy</Doc>.
    </p>
  );
}

/** The team form's agreement: registering agrees for the team, each athlete's family included. */
export function TeamAgreementNote() {
  return (
    <p className="muted agreement-note">
      By registering the team you agree to the <Doc href="/terms">terms and conditions</Doc>, the camp's <Doc href={CAMP_POLICY_PATHS.waiver}>liability waiver</Doc> and{" "}
      <Doc href={CAMP_POLICY_PATHS.medicalRelease}>medical release</Doc> for every athlete, and to the{" "}
      <Doc href={CAMP_POLICY_PATHS.cancellation}>camp refund and cancellation policy</Doc>.
    </p>
  );
}

/** The camp refund and cancellation policy as a list: the one rendering of its lines on every page. */
export function CancellationPolicyList() {
  return (
    <ul className="cancellation-policy">
      {cancellationPolicyLines().map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}
