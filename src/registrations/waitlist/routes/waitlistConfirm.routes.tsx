import { Router, type Request, type Response } from "express";
import { formPost } from "../../../http/forms.ts";
import { momentText } from "../../../shared/texts.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { findPackage, REGISTRATION_ERRORS } from "../../../shared/registrations/rules.ts";
import { WAITLIST_TEXT } from "../../../shared/registrations/waitingList.ts";
import { ConfirmAsk, Notice, Standing } from "../../../../views/pages/registration/WaitingListPage.tsx";
import { entryById, placeInLine, type Entry } from "../tables/entries.ts";
import { requestByConfirmToken, type Request as JoinRequestRow } from "../tables/requests.ts";
import { confirmRequest, type Confirmation } from "../confirm.ts";
import { leaveLine } from "../accept.ts";
import type { WaitingListDeps } from "../deps.ts";
import { loadEvent, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { linkNotValid, TOKEN, waitingListPage as page } from "./waitlist.routes.tsx";

const places = (n: number) => `${n} ${n === 1 ? "place" : "places"}`;

/**
 * What an entry (or a request) waits for, in words: "2 places, Full Camp (3 Days)." or "A team of 6 (Steel City WC).".
 * The package by the event's own name for it, as its form and the offer name it.
 */
export function waitingFor(event: EventDetail, entry: Pick<Entry, "kind" | "places" | "packageCode"> & { teamName?: string | null }): string {
  if (entry.kind === "team") return `A team of ${entry.places}${entry.teamName ? ` (${entry.teamName})` : ""}.`;
  return `${places(entry.places)}, ${findPackage(event, entry.packageCode)?.label ?? entry.packageCode}.`;
}

/** Why a confirmation makes no entry: the page's text and status. */
const REFUSED: Record<Exclude<Confirmation["status"], "inLine" | "unknown" | "lapsed">, (deps: WaitingListDeps) => string> = {
  closed: () => REGISTRATION_ERRORS.closed,
  alreadyOn: () => WAITLIST_TEXT.alreadyOn,
  overCap: (deps) => WAITLIST_TEXT.visitorCap(deps.limits.maxHeldPlacesPerVisitor),
};

/**
 * The confirmation link (/waiting-list/confirm/{token}, e-mailed when a family or team asks to join): its button
 * confirms the e-mail (a form post to the same address: the request becomes an entry in line); from then on the link
 * shows where the entry stands and lets it leave the line (/waiting-list/confirm/{token}/leave). Forms that work
 * without JavaScript.
 */
export function waitingListConfirmRoutes(deps: RegistrationRouteDeps & WaitingListDeps): Router {
  const router = Router();

  async function byConfirmToken(req: Request, res: Response) {
    const token = String(req.params.token);
    const request = TOKEN.test(token) ? await requestByConfirmToken(deps.db, token) : undefined;
    const event = request ? await loadEvent(deps, request.eventId) : null;
    if (!request || !event) {
      linkNotValid(req, res, WAITLIST_TEXT.confirmExpired);
      return undefined;
    }
    return { request, event, token };
  }
  type Found = { request: JoinRequestRow; event: EventDetail; token: string };

  async function standing(req: Request, res: Response, { event, token }: Found, entry: Entry, justConfirmed: boolean) {
    page(req, res, event, "Your Place in Line",
      <Standing action={`/waiting-list/confirm/${token}/leave`} status={entry.status} placeInLine={await placeInLine(deps.db, entry)} waitingFor={waitingFor(event, entry)}
        offerHours={deps.offerHours} offeredUntilText={entry.offeredUntil ? momentText(entry.offeredUntil, event.timeZone) : ""} justConfirmed={justConfirmed} />);
  }

  /** Opened (maybe by a mail scanner), the link changes nothing: confirming is the button's form post. */
  router.get("/waiting-list/confirm/:token", deps.manageLimit, async (req, res) => {
    const found = await byConfirmToken(req, res);
    if (!found) return;
    const { request, event, token } = found;
    if (request.entryId !== null) {
      const entry = await entryById(deps.db, request.entryId);
      return entry ? standing(req, res, found, entry, false) : linkNotValid(req, res, WAITLIST_TEXT.confirmExpired);
    }
    if (request.confirmBy.getTime() <= deps.clock().getTime()) return linkNotValid(req, res, WAITLIST_TEXT.confirmExpired);
    page(req, res, event, "Confirm Your Place in Line",
      <ConfirmAsk action={`/waiting-list/confirm/${token}`} waitingFor={waitingFor(event, request.join)} untilText={momentText(request.confirmBy, event.timeZone)} />);
  });

  const confirmForm = formPost({
    run: async (req, res, _none, found: Found) => {
      const answer = await confirmRequest(deps, found.event, found.request);
      if (answer.status === "inLine") return standing(req, res, found, answer.entry, answer.justNow);
      if (answer.status === "unknown" || answer.status === "lapsed") return linkNotValid(req, res, WAITLIST_TEXT.confirmExpired);
      page(req, res, found.event, "Waiting List", <Notice title="Not Added to the List" eventId={found.event.id}><p>{REFUSED[answer.status](deps)}</p></Notice>, 409);
    },
  });
  router.post("/waiting-list/confirm/:token", deps.manageLimit, async (req, res) => {
    const found = await byConfirmToken(req, res);
    if (found) await confirmForm(req, res, found);
  });

  const leaveForm = formPost({
    run: async (req, res, _none, found: Found) => {
      const entry = found.request.entryId === null ? undefined : await entryById(deps.db, found.request.entryId);
      if (!entry) return linkNotValid(req, res, WAITLIST_TEXT.confirmExpired);
      await leaveLine(deps, entry);
      const after = (await entryById(deps.db, entry.id))!;
      page(req, res, found.event, "Waiting List",
        <Notice title={after.status === "declined" ? "Offer Declined" : "You Left the Waiting List"} eventId={found.event.id}>
          <p>{after.status === "declined" ? WAITLIST_TEXT.declined : after.status === "left" ? WAITLIST_TEXT.left : WAITLIST_TEXT.ended[after.status as keyof typeof WAITLIST_TEXT.ended] ?? WAITLIST_TEXT.left}</p>
        </Notice>);
    },
  });
  router.post("/waiting-list/confirm/:token/leave", deps.manageLimit, async (req, res) => {
    const found = await byConfirmToken(req, res);
    if (found) await leaveForm(req, res, found);
  });

  return router;
}
