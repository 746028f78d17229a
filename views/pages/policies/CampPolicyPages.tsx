import type { Site } from "../../../src/shared/site.ts";
import type { AgreementText } from "../../../src/shared/registrations/agreements.ts";
import { DEFAULT_FREEZE_DAYS } from "../../../src/shared/registrations/changePolicy.ts";
import { CancellationPolicyList } from "../../../components/CampAgreements.tsx";
import { PolicyPage } from "./PolicyPages.tsx";

/** /camp-cancellation-policy */
export function CancellationPolicyPage({ site }: { site: Site }) {
  return (
    <PolicyPage eyebrow="Camps and clinics" title="Camp Refund and Cancellation Policy" lead="What you get back when you cancel a camp registration, and until when you can change it.">
      <h2>Canceling</h2>
      <p>Cancel through the link in your confirmation e-mail (lost it? ask for it again on the event's page). The refund depends on how long before the camp's first day you cancel:</p>
      <CancellationPolicyList />
      <p>The manage page shows the exact amount before you confirm. Canceling gives your places back at once. A coach can cancel one athlete of a team or the whole team; each athlete's share follows the same rule.</p>
      <h2>Changing a registration</h2>
      <p>
        Until {DEFAULT_FREEZE_DAYS} days before the first day (or the deadline the event page names), you can correct the athlete's details, the shirt size,
        the emergency contact and medical notes, and move days within the same package. After that date only the medical notes can change, until the camp
        ends; write to us for anything urgent.
      </p>
      <h2>Teams</h2>
      <p>
        When a coach pays for a team, each athlete's family gets its own link by e-mail (at the athlete's address on the roster). With it the family checks the
        athlete's details, adds medical notes and, for an athlete under 18, a parent or legal guardian signs the liability waiver and medical release. The
        coach's roster shows who is still missing what; a family still missing the waiver gets a reminder in the 7 days before the deadline.
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
    <PolicyPage eyebrow="Camps and clinics" title={text.title} lead={`Version ${text.version}. Agreed to with every individual camp registration; for each athlete of a team, signed through the family's own link (by a parent or legal guardian for an athlete under 18).`}>
      {text.paragraphs.map((p) => (
        <p key={p}>{p}</p>
      ))}
    </PolicyPage>
  );
}
