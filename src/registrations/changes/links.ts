import type { Knex } from "knex";
import type { Request } from "express";
import type { EventDetail } from "../../shared/events/types.ts";
import { newSecretToken, SECRET_TOKEN_PATTERN, secretTokenHash } from "../../http/secretLinks.ts";
import { enqueueEmail } from "../../email/outbox.ts";
import { findEvent } from "../../events/repository.ts";
import type { Db } from "../../db/knex.ts";
import type { Registration } from "../core/registration.ts";
import { findByReference, lockByReference } from "../core/tables/registrations.ts";
import * as changesRepo from "./repository.ts";
import type { ManageLinkSource } from "./repository.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { manageLinkEmail } from "./email.ts";

/** Where a manage link opens. */
export const MANAGE_PATH = "/my-registration";
export const manageUrl = (publicUrl: string, token: string) => `${publicUrl}${MANAGE_PATH}/${token}`;

/** Registrations a manage link opens, and "Lost your confirmation?" finds: paid, in review or canceled by the registrant. */
export const MANAGEABLE_STATUSES = ["paid", "needs_review", "withdrawn", "refunded", "refund_failed", "deposit_paid", "balance_overdue"] as const;

/** A new private link for a registration: the token goes to the registrant, its hash into the database. */
export async function issueManageLink(conn: Db | Knex.Transaction, registrationId: number, sentBy: ManageLinkSource, now: Date, athletePosition: number | null = null): Promise<string> {
  const { token, row } = newManageLink(registrationId, sentBy, now, athletePosition);
  await changesRepo.insertManageLinks(conn, [row]);
  return token;
}

/** A new private link not yet written: its token for the e-mail, its row (the hash) for the caller to insert with others. */
export function newManageLink(registrationId: number, sentBy: ManageLinkSource, now: Date, athletePosition: number | null = null): { token: string; row: changesRepo.NewManageLink } {
  const token = newSecretToken();
  return { token, row: { registrationId, tokenHash: secretTokenHash(token), sentBy, createdAt: now, athletePosition } };
}

/**
 * The registration a token opens, or undefined. Any string is hashed and looked up the same way, so a malformed
 * token, an unknown one and a revoked one take the same path and the same time, and answer the same 404.
 */
export async function registrationByToken({ db, clock }: { db: Db; clock: () => Date }, token: string): Promise<{ registration: Registration; athletePosition: number | null } | undefined> {
  const link = await changesRepo.linkByManageTokenHash(db, secretTokenHash(token.slice(0, 100)), clock());
  if (!link || !SECRET_TOKEN_PATTERN.test(token)) return undefined;
  const r = await findByReference(db, link.reference);
  if (!r || !(MANAGEABLE_STATUSES as readonly string[]).includes(r.status)) return undefined;
  // A family's link opens only while its athlete is still on the team.
  if (link.athletePosition !== null && !r.athletes.some((a) => a.position === link.athletePosition && a.withdrawnAt === null)) return undefined;
  return { registration: r, athletePosition: link.athletePosition };
}

/** "Lost your confirmation?": link e-mails per registration per day, and how long the link it replaces still opens. */
export const LOST_CONFIRMATION_LIMITS = { perRegistrationPerDay: 3, graceMs: 15 * 60_000 } as const;

/**
 * "Lost your confirmation?": each registration of this event made with this address gets a new link by e-mail, at
 * most 3 a day; the new link replaces the earlier ones (the confirmation's too), which stop opening 15 minutes later.
 * Each registration is decided under its row's lock, so posts at once cannot go past the cap. The caller answers the
 * same whatever is found or sent, so nobody learns whether an address registered.
 */
export async function resendManageLinks(deps: RegistrationDeps, eventId: number, email: string): Promise<number> {
  const event = await findEvent(deps.db, eventId);
  if (!event) return 0;
  const references = await changesRepo.manageableReferences(deps.db, eventId, email, MANAGEABLE_STATUSES);
  let sent = 0;
  for (const reference of references) {
    const queued = await deps.db.transaction(async (trx) => {
      const r = await lockByReference(trx, reference);
      if (!r || !(MANAGEABLE_STATUSES as readonly string[]).includes(r.status)) return false;
      const now = deps.clock();
      if ((await changesRepo.manageLinksSentSince(trx, r.id, "resend", new Date(now.getTime() - 86_400_000))) >= LOST_CONFIRMATION_LIMITS.perRegistrationPerDay) return false;
      await changesRepo.revokeWholeLinks(trx, r.id, new Date(now.getTime() + LOST_CONFIRMATION_LIMITS.graceMs));
      const token = await issueManageLink(trx, r.id, "resend", now);
      await enqueueEmail(trx, manageLinkEmail(deps.site, event, r, manageUrl(deps.publicUrl, token)));
      return true;
    });
    if (queued) sent += 1;
  }
  if (sent > 0) deps.outbox.wake();
  return sent;
}

/** The link a confirmation e-mail carries: issued in the transaction that marks the registration paid. */
export async function confirmationManageUrl(trx: Knex.Transaction, deps: Pick<RegistrationDeps, "publicUrl">, registrationId: number, now: Date): Promise<string> {
  return manageUrl(deps.publicUrl, await issueManageLink(trx, registrationId, "confirmation", now));
}

/**
 * The manage link a confirmation page shows to the visitor who paid: issued once per session and registration, so a
 * reload shows the same link instead of adding one.
 */
export async function confirmationPageManageHref(req: Request, deps: RegistrationDeps, r: Registration): Promise<string> {
  let token = pageLinkKept(req, r.reference);
  if (!token) {
    token = await issueManageLink(deps.db, r.id, "page", deps.clock());
    keepPageLink(req, r.reference, token);
  }
  return `${MANAGE_PATH}/${token}`;
}

/** The page's manage link this session keeps for a registration, if any. */
export const pageLinkKept = (req: Request, reference: string): string | undefined => req.session.manageLinks?.[reference];

/** The session keeps the page's manage link of a registration (the last ten registrations'). */
export function keepPageLink(req: Request, reference: string, token: string): void {
  const kept = Object.entries(req.session.manageLinks ?? {}).slice(-9);
  req.session.manageLinks = { ...Object.fromEntries(kept), [reference]: token };
}

/** What a link opens: the registration, its event, the page's address and, for a family's link, the one athlete. */
export interface Opened {
  r: Registration;
  event: EventDetail;
  base: string;
  athletePosition: number | null;
}
