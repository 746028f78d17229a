import type { Request } from "express";
import type { EventDetail } from "../../../shared/events/types.ts";
import { withInvitedRows, type TeamInviteView } from "../../../shared/registrations/invites.ts";
import type { TeamFormValues, TeamRegistration } from "../../../shared/registrations/teamRules.ts";
import type { RegistrationDeps } from "../../core/deps.ts";
import { createInvite, inviteByToken, inviteView, invitedRows, rememberHeld, removeFamilyRow, saveInviteDraft } from "../invites/invites.ts";
import { rowsOf, type Invite } from "../invites/repository.ts";

/** The coach's side of a team's invite link on the team form: the draft this browser keeps on the server, its rows joined to the team held. */
export function coachInvites(deps: RegistrationDeps) {
  /** This browser's open invite for the event (its token is in the session; the table has its hash). */
  async function current(req: Request, eventId: number): Promise<{ invite: Invite; token: string } | undefined> {
    const token = req.session?.teamInvites?.[String(eventId)];
    const invite = token ? await inviteByToken(deps, token) : undefined;
    return invite && invite.eventId === eventId && !invite.paidAt ? { invite, token: token! } : undefined;
  }

  return {
    /** The form's start from the draft on the server (the coach's own rows; the families' rows are shown apart). */
    async draftValues(req: Request, eventId: number): Promise<TeamFormValues | undefined> {
      const found = await current(req, eventId);
      return found ? { formSessionId: found.invite.formSessionId, coachInfo: found.invite.coach, athletes: found.invite.rows } : undefined;
    },

    async view(req: Request, eventId: number): Promise<TeamInviteView | null> {
      const found = await current(req, eventId);
      return found ? inviteView(deps, found.invite, found.token) : null;
    },

    /** The coach asks for the link: the form as posted becomes the draft (a second press keeps the one link). */
    async create(req: Request, event: EventDetail, values: TeamFormValues): Promise<void> {
      const found = await current(req, event.id);
      if (found) return saveInviteDraft(deps, found.invite, values);
      const token = await createInvite(deps, event, values);
      req.session.teamInvites = { ...(req.session.teamInvites ?? {}), [String(event.id)]: token };
    },

    /** The coach removes a family's row (a wrong or unknown athlete). */
    async removeRow(req: Request, eventId: number, rowId: unknown): Promise<void> {
      const found = await current(req, eventId);
      if (found && typeof rowId === "string" && /^\d{1,12}$/.test(rowId)) await removeFamilyRow(deps, found.invite.id, Number(rowId));
    },

    /** Rows added or removed without JavaScript: the draft follows the form. */
    async save(req: Request, eventId: number, values: TeamFormValues): Promise<void> {
      const found = await current(req, eventId);
      if (found) await saveInviteDraft(deps, found.invite, values);
    },

    /**
     * What the register button pays for: with `invite` posted (the team form sends it once the coach has a link), the
     * coach's rows and then every family's row as stored now, never as the browser sent them. `held` saves the draft and
     * tells the invite which team and where its rows went. A post of the spec's shape is unchanged.
     */
    async forHold(req: Request, eventId: number, values: TeamFormValues, posted: unknown) {
      const found = posted === "1" || posted === true ? await current(req, eventId) : undefined;
      if (!found) return { values, rows: [], held: async () => undefined };
      const rows = invitedRows(await rowsOf(deps.db, found.invite.id));
      return {
        values: withInvitedRows(values, rows),
        rows,
        // Once held, the draft is the form as registered (refused input changes nothing).
        held: async (reference: string, data: TeamRegistration) => {
          await saveInviteDraft(deps, found.invite, values);
          await rememberHeld(deps, found.invite.id, reference, rows.map((r) => r.id), data.athletes.length - rows.length + 1);
        },
      };
    },
  };
}
