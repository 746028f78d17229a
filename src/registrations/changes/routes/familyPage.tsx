import type { Request, Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import type { FormState } from "../../../shared/forms.ts";
import { eventHoursText } from "../../../shared/events/rules.ts";
import { deadlineText, stampText } from "../../../shared/texts.ts";
import { FamilyPage, type FamilyView } from "../../../../views/pages/registration/FamilyPage.tsx";
import type { RegistrationDeps } from "../../core/deps.ts";
import type { Opened } from "../links.ts";
import { ADULT_AGE, athleteRowOf, SIGNER_RELATIONSHIPS } from "../familyRules.ts";
import { AGREEMENTS_VERSION } from "../../../shared/registrations/agreements.ts";
import { allowed } from "./manageLink.tsx";

/** A family's page: one athlete of a team, their details, medical notes and the waiver. */
export async function showFamily(deps: RegistrationDeps, req: Request, res: Response, o: Opened, extra: { details?: FormState; waiver?: FormState; message?: string; status?: number } = {}) {
  const p = await allowed(deps, o);
  const index = o.r.athletes.findIndex((a) => a.position === o.athletePosition);
  const a = o.r.athletes[index]!;
  const zone = o.event.timeZone;
  const view: FamilyView = {
    base: o.base,
    athleteName: `${a.firstName} ${a.lastName}`,
    teamName: o.r.teamName ?? `${o.r.contact.firstName} ${o.r.contact.lastName}'s team`,
    coachName: `${o.r.contact.firstName} ${o.r.contact.lastName}`,
    eventTitle: o.event.title,
    dateText: o.event.dateText,
    hours: eventHoursText(o.event),
    location: o.event.location,
    version: o.r.version,
    phase: p.phase,
    changesUntil: deadlineText(p.freezeAt, zone),
    reason: p.reason,
    waiver: a.waiver && { ...a.waiver, signedAt: stampText(a.waiver.signedAt, zone) },
    waiverVersion: AGREEMENTS_VERSION,
    minor: a.age === null || a.age < ADULT_AGE,
    relationships: SIGNER_RELATIONSHIPS,
  };
  const details = extra.details ?? { values: { athlete: athleteRowOf(a), specialRequirements: a.specialRequirements ?? "" }, errors: {} };
  renderPage(req, res, <FamilyPage view={view} details={details} waiver={extra.waiver ?? { values: {}, errors: {} }} message={extra.message} />, {
    title: `${view.athleteName}: ${o.event.title}`,
    description: "Your athlete's camp registration: details, medical notes and the waiver.",
    status: extra.status,
    noindex: true,
  });
}
