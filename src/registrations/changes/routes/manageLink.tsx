import type { Request, Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import { findEvent } from "../../../events/repository.ts";
import { ManageLinkNotFound } from "../../../../views/pages/registration/ManagePage.tsx";
import type { PendingChange } from "../../../../views/pages/registration/ChangePages.tsx";
import { CHANGE_TEXT } from "../../../shared/registrations/changeTexts.ts";
import { changesOf } from "../../core/tables/changes.ts";
import { eventChangesFreezeAt } from "../../core/tables/eventTerms.ts";
import type { RegistrationDeps } from "../../core/deps.ts";
import { MANAGE_PATH, registrationByToken, type Opened } from "../links.ts";
import { permissions, type Permissions } from "../../core/permissions.ts";

/**
 * What a private manage link (`/my-registration/{token}`) opens: the registration and its event, what may change now
 * and the change waiting for payment. Every page it shows (managePage.tsx, cancelPage.tsx, familyPage.tsx) answers
 * `no-store` and sends its address (the token) as referrer only to this site, so the token stays out of caches and
 * other sites' logs.
 */

/** Manage actions and link look-ups per address per minute. */
export const MANAGE_RATE_LIMIT = { windowMs: 60_000, limit: 60 } as const;

/** A change posted through a link: what it opens and what may change now. */
export interface Changing {
  o: Opened;
  p: Permissions;
}

/** The version of the registration the posted page showed (-1 when missing: the change is then refused as stale). */
export const versionOf = (body: Record<string, unknown>) => (typeof body.version === "string" && /^\d{1,9}$/.test(body.version) ? Number(body.version) : -1);

/** The registration the link opens, or the one 404 page. */
export async function openLink(deps: RegistrationDeps, req: Request, res: Response): Promise<Opened | undefined> {
  res.set({ "cache-control": "private, no-store", "referrer-policy": "same-origin" });
  const token = String(req.params.token ?? "");
  const found = await registrationByToken(deps, token);
  const event = found ? await findEvent(deps.db, found.registration.eventId) : undefined;
  if (!found || !event) {
    renderPage(req, res, <ManageLinkNotFound />, { title: "Link Not Found", description: "This registration link does not work.", status: 404, noindex: true });
    return undefined;
  }
  return { r: found.registration, event, base: `${MANAGE_PATH}/${token}`, athletePosition: found.athletePosition };
}

export async function allowed(deps: RegistrationDeps, o: Opened): Promise<Permissions> {
  return permissions(o.r.status, o.event, await eventChangesFreezeAt(deps.db, o.event.id), deps.clock());
}

/** The change waiting for its payment (or its review), if any: the manage page and the change pages link to it. */
export async function pendingChangeOf(deps: RegistrationDeps, o: Opened): Promise<PendingChange | null> {
  const c = (await changesOf(deps.db, o.r.id, ["pending", "needs_review"]))[0];
  if (!c) return null;
  const what = c.data.kind === "upgrade" ? CHANGE_TEXT.pendingUpgrade(c.data.packageLabel) : CHANGE_TEXT.pendingAthletes(c.data.athletes.map((a) => `${a.firstName} ${a.lastName}`));
  return { href: `${o.base}/changes/${c.id}`, what, amountCents: c.amountCents, review: c.status === "needs_review" };
}
