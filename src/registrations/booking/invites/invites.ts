import type { Knex } from "knex";
import { lockingTransaction } from "../../../db/transaction.ts";
import { DomainError } from "../../../errors.ts";
import { newSecretToken, SECRET_TOKEN_PATTERN, secretTokenHash } from "../../../http/secretLinks.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { AGREEMENTS_VERSION } from "../../../shared/registrations/agreements.ts";
import { INVITE_PATH, INVITE_TEXT, invitePlacesLeft, type InvitedRow, type TeamInviteView } from "../../../shared/registrations/invites.ts";
import { TEAM_MAXIMUM, type TeamAthlete, type TeamFormValues } from "../../../shared/registrations/teamRules.ts";
import type { RegistrationDeps } from "../../core/deps.ts";
import type { Registration } from "../../core/registration.ts";
import { signWaiver } from "../../core/tables/athletes.ts";
import { FAMILY_TEXT, maySign, missingFor, type SIGNER_RELATIONSHIPS } from "../../changes/familyRules.ts";
import * as repo from "./repository.ts";
import type { Invite, InviteRow } from "./repository.ts";

/**
 * A team's invite link (docs/behaviour.md, "A team's invite link"): the coach's draft on the server, one link that
 * families open to fill in their own athlete's row, the rows joined to the team the coach holds, the waivers
 * recorded when it is paid.
 */

export const inviteUrl = (publicUrl: string, token: string) => `${publicUrl}${INVITE_PATH}/${token}`;

/** The invite a token opens: any string is hashed and looked up alike, a malformed one answers as an unknown one. */
export async function inviteByToken(deps: Pick<RegistrationDeps, "db">, token: string): Promise<Invite | undefined> {
  const invite = await repo.inviteByTokenHash(deps.db, secretTokenHash(token.slice(0, 100)));
  return invite && SECRET_TOKEN_PATTERN.test(token) ? invite : undefined;
}

/** A coach's new invite: the form as it stands becomes the draft on the server; the token goes to the coach alone. */
export async function createInvite(deps: RegistrationDeps, event: EventDetail, values: TeamFormValues): Promise<string> {
  const token = newSecretToken();
  await repo.insertInvite(deps.db, { eventId: event.id, tokenHash: secretTokenHash(token), formSessionId: values.formSessionId, coach: values.coachInfo, rows: values.athletes }, deps.clock());
  return token;
}

/** The coach's form as posted is the draft again (rows added, removed, or the team registered). */
export async function saveInviteDraft(deps: RegistrationDeps, invite: Invite, values: TeamFormValues): Promise<void> {
  await repo.saveDraft(deps.db, invite.id, { formSessionId: values.formSessionId, coach: values.coachInfo, rows: values.athletes }, deps.clock());
}

/** The families' rows as the coach's form shows them. */
export function invitedRows(rows: InviteRow[]): InvitedRow[] {
  return rows.map((r) => ({
    id: r.id,
    row: { ...r.athlete, age: String(r.athlete.age) },
    waiverSigned: r.waiver !== null,
    missing: missingFor({ waiver: r.waiver, age: r.athlete.age } as Parameters<typeof missingFor>[0]),
  }));
}

export async function inviteView(deps: RegistrationDeps, invite: Invite, token: string): Promise<TeamInviteView> {
  return { url: inviteUrl(deps.publicUrl, token), rows: invitedRows(await repo.rowsOf(deps.db, invite.id)) };
}

export type Signature = { signedName: string; relationship: (typeof SIGNER_RELATIONSHIPS)[number] };

/**
 * A family saves its athlete's row (and, if it signs now, the waiver): a new row, or the row this browser saved
 * before (`ownRowId`). Decided under the invite's lock: closed once the team is paid, and never more rows than
 * the team's maximum, however many families post at once.
 */
export async function saveFamilyRow(
  deps: RegistrationDeps,
  inviteId: number,
  ownRowId: number | undefined,
  athlete: TeamAthlete,
  signature: Signature | null,
): Promise<{ rowId: number; outcome: "saved" | "updated" }> {
  if (signature && !maySign(signature.relationship, athlete.age)) throw new DomainError("invalid", FAMILY_TEXT.minorSigner);
  const now = deps.clock();
  return lockingTransaction(deps.db, async (trx) => {
    const invite = await repo.lockInvite(trx, inviteId);
    if (!invite) throw new DomainError("not_found", INVITE_TEXT.closed);
    if (invite.paidAt) throw new DomainError("conflict", INVITE_TEXT.closed);
    const rows = await repo.rowsOf(trx, invite.id);
    const own = ownRowId === undefined ? undefined : rows.find((r) => r.id === ownRowId);
    const waiver = signature ? { version: AGREEMENTS_VERSION, ...signature } : null;
    if (own) {
      // A signature given before stays unless a new one is given, or the new age no longer lets its signer sign.
      const keep = own.waiver && maySign(own.waiver.relationship, athlete.age) ? undefined : null;
      await repo.updateRow(trx, own.id, athlete, waiver ?? keep, now);
      return { rowId: own.id, outcome: "updated" as const };
    }
    if (invitePlacesLeft(TEAM_MAXIMUM, invite.rows, rows.length) <= 0) throw new DomainError("conflict", INVITE_TEXT.full(TEAM_MAXIMUM));
    return { rowId: await repo.insertRow(trx, invite.id, athlete, waiver, now), outcome: "saved" as const };
  });
}

/** The coach takes a family's row off the team (a wrong or unknown athlete); nothing once the team is paid. */
export async function removeFamilyRow(deps: RegistrationDeps, inviteId: number, rowId: number): Promise<void> {
  await lockingTransaction(deps.db, async (trx) => {
    const invite = await repo.lockInvite(trx, inviteId);
    if (!invite || invite.paidAt) throw new DomainError("conflict", INVITE_TEXT.closed);
    await repo.deleteRow(trx, inviteId, rowId);
  });
}

/**
 * After the coach's team is held: the invite names it, and each family's row its place on it (`firstPosition` is
 * the position of the first family row, the coach's own complete rows coming first).
 */
export async function rememberHeld(deps: RegistrationDeps, inviteId: number, reference: string, rowIds: number[], firstPosition: number): Promise<void> {
  await lockingTransaction(deps.db, async (trx) => {
    const invite = await repo.lockInvite(trx, inviteId);
    if (!invite || invite.paidAt) return;
    await repo.markHeld(trx, inviteId, reference, new Map(rowIds.map((id, i) => [id, firstPosition + i])), deps.clock());
  });
}

/**
 * In the transaction that marks a team paid (its registration's lock held): the invite it was held from closes, and
 * each family's waiver signed through the invite is recorded on its athlete, when its signer may sign for the athlete
 * as held. Returns the registration with those waivers, for the family e-mails written next.
 */
export async function closeInviteOnPayment(trx: Knex.Transaction, r: Registration, now: Date): Promise<Registration> {
  if (r.kind !== "team") return r;
  const invite = await repo.lockInviteOfReference(trx, r.reference);
  if (!invite || invite.paidAt) return r;
  await repo.markPaid(trx, invite.id, now);
  const signed = new Map<number, NonNullable<InviteRow["waiver"]>>();
  for (const row of await repo.rowsOf(trx, invite.id)) {
    if (row.heldPosition === null || !row.waiver) continue;
    // The athlete at that place must be this row's (two tabs registering at once may each have marked the rows).
    const athlete = r.athletes.find((a) => a.position === row.heldPosition && a.email === row.athlete.email && a.firstName === row.athlete.firstName && a.lastName === row.athlete.lastName);
    if (!athlete || athlete.waiver || !maySign(row.waiver.relationship, athlete.age)) continue;
    await signWaiver(trx, r.id, athlete.position, row.waiver, row.waiver.signedAt);
    signed.set(athlete.position, row.waiver);
  }
  if (signed.size === 0) return r;
  return { ...r, athletes: r.athletes.map((a) => (signed.has(a.position) ? { ...a, waiver: signed.get(a.position)! } : a)) };
}
