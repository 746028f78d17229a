import type { Site } from "../../../src/shared/site.ts";
import type { AgreementText } from "../../../src/shared/registrations/agreements.ts";
import { DEFAULT_FREEZE_DAYS } from "../../../src/shared/registrations/changePolicy.ts";
import { CancellationPolicyList } from "../../components/CampAgreements.tsx";
import { PolicyPage } from "./PolicyPages.tsx";

/** /camp-cancellation-policy */
export function CancellationPolicyPage({ site }: { site: Site }) {
  return (
    <PolicyPage eyebrow="Camps and clinics" title="Camp Refund and Cancellation Policy" lead="What you get back when you cancel a camp registration, and until when you can change it.">
      <h2>Cancelling</h2>
      <p>Cancel through the link in your confirmation e-mail (lost it? ask for it again on the event's page). The refund depends on how long before the camp's first day you cancel:</p>
      <CancellationPolicyList />
      <p>The manage page shows the exact amount before you confirm. Cancelling gives your places back at once. A coach can cancel one athlete of a team or the whole team; each athlete's share follows the same rule.</p>
      <h2>Changing a registration</h2>
      <p>
        Until {DEFAULT_FREEZE_DAYS} days before the first day (or the deadline the event page names), you can correct the athlete's details, the shirt size,
        the emergency contact and medical notes, and move days within the same package. After that date the details are final; write to us for anything urgent.
      </p>
      <h2>If we cancel</h2>
      <p>If we have to cancel a camp, everyone registered gets a full refund.</p>
      <h2>Questions</h2>
      <p>
        <a href={`mailto:${site.email}`}>{site.email}</a> or <a href={site.phoneHref}>{site.phone}</a>
      </p>
    </PolicyPage>
  );
}

/** /camp-waiver and /camp-medical-release: a versioned text. */
export function AgreementPage({ text }: { text: AgreementText }) {
  return (
    <PolicyPage eyebrow="Camps and clinics" title={text.title} lead={`Version ${text.version}. Agreed to with every camp registration.`}>
      {text.paragraphs.map((p) => (
        <p key={p}>{p}</p>
      ))}
    </PolicyPage>
  );
}
