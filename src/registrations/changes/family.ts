import { enqueueEmail } from "../../email/outbox.ts";
import { DomainError } from "../../errors.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import type { TeamAthlete } from "../../shared/registrations/teamRules.ts";
import { signWaiver, updateAthlete, voidWaiver, type AthleteDetails } from "../core/tables/athletes.ts";
import { findByReference, setVersion } from "../core/tables/registrations.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { AGREEMENTS_VERSION } from "../../shared/registrations/agreements.ts";
import { familyLinkEmail, registrationChangedEmail } from "./email.ts";
import { issueManageLink, manageUrl } from "./links.ts";
import { PERMIT, withRegistration } from "../core/withRegistration.ts";
import type { ChangePhase } from "../../shared/registrations/changePolicy.ts";
import { FAMILY_TEXT, maySign, type SIGNER_RELATIONSHIPS } from "./familyRules.ts";
import { familyDue } from "./familyLinks.ts";

/** What a team athlete's family does through its link: corrects the athlete's details, signs the waiver and medical release. */

/** A family corrects its athlete: before the freeze date every field of the team form's row and the medical notes, after it the medical notes. */
export async function changeTeamAthlete(
  deps: RegistrationDeps,
  event: EventDetail,
  input: { reference: string; position: number; shownVersion: number; phase: ChangePhase; athlete: TeamAthlete; specialRequirements: string | null },
): Promise<"changed" | "unchanged" | "waiverVoided"> {
  const need = { event, kind: "team" as const, athletePosition: input.position, permit: PERMIT.phase(input.phase), shownVersion: input.shownVersion };
  const outcome = await withRegistration(deps, input.reference, need, async ({ trx, now, r, athlete, allowed }) => {
    const a = input.athlete;
    const next: AthleteDetails =
      allowed.phase === "open"
        ? { ...athlete, firstName: a.firstName, lastName: a.lastName, email: a.email, age: a.age, shirtSize: a.shirtSize, emergencyContactName: a.parentName, emergencyContactPhone: a.parentPhoneNumber, specialRequirements: input.specialRequirements }
        : { ...athlete, specialRequirements: input.specialRequirements };
    const what: string[] = [];
    const differs = (keys: (keyof AthleteDetails)[]) => keys.some((k) => (next[k] ?? null) !== (athlete[k] ?? null));
    if (differs(["firstName", "lastName", "email", "age"])) what.push("athlete details");
    if (differs(["shirtSize"])) what.push("shirt size");
    if (differs(["emergencyContactName", "emergencyContactPhone"])) what.push("parent's contact");
    if (differs(["specialRequirements"])) what.push("medical notes and special requirements");
    if (what.length === 0) return "unchanged" as const;
    // Who may sign is decided again with the new age: an athlete who is a minor now cannot have signed for themself.
    const voided = athlete.waiver !== null && !maySign(athlete.waiver.relationship, next.age);
    await updateAthlete(trx, r.id, athlete.position, next);
    if (voided) await voidWaiver(trx, r.id, athlete.position);
    if (voided) what.push("the athlete's own signature of the waiver voided (under 18)");
    await setVersion(trx, r.id, r.version + 1, now);
    const changed = (await findByReference(trx, r.reference))!;
    // The coach hears of it: the contact of the team's registration.
    await enqueueEmail(trx, registrationChangedEmail(deps.site, event, changed, [`${athlete.firstName} ${athlete.lastName}: ${what.join(", ")}`]));
    if (voided) {
      // The family is asked again, at the athlete's address as it now stands, for a parent's or guardian's signature.
      const asNow = changed.athletes.find((x) => x.position === athlete.position)!;
      const token = await issueManageLink(trx, r.id, "family", now, athlete.position);
      await enqueueEmail(trx, familyLinkEmail(deps.site, event, changed, asNow, manageUrl(deps.publicUrl, token), await familyDue(trx, event, asNow, now), true));
      return "waiverVoided" as const;
    }
    return "changed" as const;
  });
  if (outcome !== "unchanged") deps.outbox.wake();
  return outcome;
}

/** The family signs the current waiver and medical release for its athlete: the typed name, the relationship, when, the version. */
export async function signFamilyWaiver(deps: RegistrationDeps, event: EventDetail, input: { reference: string; position: number; signedName: string; relationship: (typeof SIGNER_RELATIONSHIPS)[number] }): Promise<void> {
  await withRegistration(deps, input.reference, { event, kind: "team", athletePosition: input.position, permit: PERMIT.active }, async ({ trx, now, r, athlete }) => {
    if (!maySign(input.relationship, athlete.age)) throw new DomainError("invalid", FAMILY_TEXT.minorSigner);
    // A second tab or a re-post does not replace the signature already given for this version.
    if (athlete.waiver?.version === AGREEMENTS_VERSION) throw new DomainError("conflict", FAMILY_TEXT.alreadySigned(athlete.waiver.signedName));
    await signWaiver(trx, r.id, athlete.position, { version: AGREEMENTS_VERSION, signedName: input.signedName, relationship: input.relationship }, now);
  });
}
