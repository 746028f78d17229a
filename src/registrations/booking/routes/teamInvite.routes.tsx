import { Router, type Request, type Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import { formPost, type Refusal } from "../../../http/forms.ts";
import { validate, type FieldErrors, type FormState } from "../../../shared/forms.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { AGREEMENTS_VERSION } from "../../../shared/registrations/agreements.ts";
import { INVITE_PATH, INVITE_TEXT, validateInviteRow } from "../../../shared/registrations/invites.ts";
import { TeamInvitePage, type TeamInviteView } from "../../../../views/pages/registration/TeamInvitePage.tsx";
import { SIGNER_RELATIONSHIPS, waiverSchema } from "../../changes/familyRules.ts";
import { loadEvent, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { inviteByToken, saveFamilyRow, type Signature } from "../invites/invites.ts";
import { rowsOf, type Invite } from "../invites/repository.ts";
import { coachInvites } from "./teamInvite.ts";

/**
 * Families' row posts per address: a family corrects its row a few times; a team's families on one school network
 * share it. Beyond, the team's maximum (decided under the invite's lock) still holds.
 */
export const INVITE_SUBMIT_LIMIT = { windowMs: 15 * 60_000, limit: 20 } as const;
const MAX_OWN_ROWS = 10;

interface Opened {
  invite: Invite;
  event: EventDetail;
  action: string;
}

/** The answer to a token that opens nothing: the same for a malformed, unknown or another event's token. */
function linkNotFound(req: Request, res: Response) {
  renderPage(
    req,
    res,
    <section className="page-center">
      <p className="eyebrow">Team registration</p>
      <h1 className="display">Link Not Found</h1>
      <p className="lead">This team invite link does not work. Please ask your coach for the link again.</p>
      <a className="btn btn-primary" href="/events">See the Events</a>
    </section>,
    { title: "Link Not Found", description: "This team invite link does not work.", status: 404, noindex: true },
  );
}

/** The row this browser saved through the invite, if any. */
const ownRowId = (req: Request, invite: Invite): number | undefined => req.session?.inviteRows?.[String(invite.id)];

/**
 * A team's invite link, `/team-invite/{token}`: a family (no account, any browser, without JavaScript too) sees the
 * team, the event and the first names already in, fills in its athlete's row and signs the waiver, and corrects its
 * row from the same browser until the coach pays. Pages answer `no-store` and keep the token out of other sites'
 * referrers, like the manage links.
 */
export function teamInviteRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  const submits = deps.rateLimiter({ name: "team-invite-submit", ...INVITE_SUBMIT_LIMIT, message: "Too many submits from your connection. Please wait a few minutes and try again." });

  async function open(req: Request, res: Response): Promise<Opened | undefined> {
    res.set({ "cache-control": "private, no-store", "referrer-policy": "same-origin" });
    const token = String(req.params.token ?? "");
    const invite = await inviteByToken(deps, token);
    const event = invite ? await loadEvent(deps, invite.eventId) : null;
    if (!invite || !event) return void linkNotFound(req, res);
    return { invite, event, action: `${INVITE_PATH}/${token}` };
  }

  async function show(req: Request, res: Response, o: Opened, extra: { form?: FormState; message?: string; status?: number } = {}) {
    const rows = await rowsOf(deps.db, o.invite.id);
    const own = rows.find((r) => r.id === ownRowId(req, o.invite));
    const coach = o.invite.coach;
    // First names only: never another athlete's last name, age, e-mail or parent.
    const firstNames = [...o.invite.rows.map((r) => r.firstName.trim()), ...rows.map((r) => r.athlete.firstName)].filter((n) => n !== "");
    const view: TeamInviteView = {
      action: o.action,
      teamName: coach.teamName.trim() || (coach.lastName.trim() ? `Coach ${coach.lastName.trim()}'s team` : INVITE_TEXT.unknownTeam),
      coachName: `${coach.firstName} ${coach.lastName}`.trim() || "Your coach",
      eventTitle: o.event.title,
      dateText: o.event.dateText,
      location: o.event.location,
      firstNames,
      closed: o.invite.paidAt !== null,
      own: own !== undefined,
      signed: own?.waiver ? { signedName: own.waiver.signedName, relationship: own.waiver.relationship } : null,
      relationships: SIGNER_RELATIONSHIPS,
      waiverVersion: AGREEMENTS_VERSION,
    };
    const form = extra.form ?? { values: own ? { athlete: { ...own.athlete, age: String(own.athlete.age) } } : {}, errors: {} };
    renderPage(req, res, <TeamInvitePage view={view} form={form} message={extra.message} />, {
      title: INVITE_TEXT.title(view.teamName),
      description: `Fill in your athlete's row for ${o.event.title}.`,
      status: extra.status,
      noindex: true,
    });
  }

  // The coach's form asks now and then for the rows families filled in (this browser's invite only).
  const invites = coachInvites(deps);
  // No rate limit: it reads only this session's own invite, which no guess can reach.
  router.get("/api/team-invite-rows/:eventId", async (req, res) => {
    res.set("cache-control", "private, no-store");
    const eventId = String(req.params.eventId);
    const view = /^\d{1,9}$/.test(eventId) ? await invites.view(req, Number(eventId)) : null;
    if (!view) return void res.status(404).json({ success: false, error: "No invite link for this team." });
    res.json({ success: true, rows: view.rows });
  });

  router.get(`${INVITE_PATH}/:token`, deps.manageLimit, async (req, res) => {
    const o = await open(req, res);
    if (o) await show(req, res, o);
  });

  const rowForm = formPost({
    check: (sent, o: Opened) => {
      const row = validateInviteRow(o.event.ageLimits, sent);
      const errors: FieldErrors = row.ok ? {} : { ...row.errors };
      // The waiver is signed now (all three given) or later through the athlete's own link (none given).
      const signing = ["signedName", "relationship", "agrees"].some((k) => typeof sent[k] === "string" && sent[k].trim() !== "");
      const waiver = signing ? validate(waiverSchema, sent) : undefined;
      if (waiver && !waiver.ok) Object.assign(errors, waiver.errors);
      if (!row.ok || (waiver && !waiver.ok)) return { ok: false as const, errors, message: Object.values(errors)[0] ?? INVITE_TEXT.waiverPartial };
      const signature: Signature | null = waiver?.ok ? { signedName: waiver.data.signedName.trim(), relationship: waiver.data.relationship } : null;
      return { ok: true as const, data: { athlete: row.data, signature } };
    },
    page: (req, res, o, form, status) => show(req, res, o, { form, status }),
    run: async (req, _res, { athlete, signature }, o) => {
      const { rowId, outcome } = await saveFamilyRow(deps, o.invite.id, ownRowId(req, o.invite), athlete, signature);
      const kept = Object.entries(req.session.inviteRows ?? {}).filter(([k]) => k !== String(o.invite.id)).slice(-(MAX_OWN_ROWS - 1));
      req.session.inviteRows = { ...Object.fromEntries(kept), [String(o.invite.id)]: rowId };
      req.log.info({ invite: o.invite.id, row: rowId, outcome }, "team invite row saved");
      return { redirect: o.action, toast: { title: outcome === "saved" ? INVITE_TEXT.saved : INVITE_TEXT.updated, variant: "success" } };
    },
    // `invalid`: the signer may not sign for this athlete (FAMILY_TEXT.minorSigner); otherwise closed or full.
    refused: (_req, _res, err): Refusal => (err.kind === "invalid" ? { errors: { relationship: err.message } } : { errors: { _form: err.message } }),
  });

  router.post(`${INVITE_PATH}/:token`, deps.manageLimit, submits, async (req, res) => {
    const o = await open(req, res);
    if (!o) return;
    if (o.invite.paidAt) return show(req, res, o, { status: 409, message: INVITE_TEXT.closed });
    await rowForm(req, res, o);
  });

  return router;
}
