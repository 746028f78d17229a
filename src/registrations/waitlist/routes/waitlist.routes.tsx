import { Router, type Request, type Response } from "express";
import { renderPage } from "../../../http/render.tsx";
import { validate, type FormState } from "../../../shared/forms.ts";
import { formError, formPost } from "../../../http/forms.ts";
import { momentText } from "../../../shared/texts.ts";
import type { EventDetail } from "../../../shared/events/types.ts";
import { JoinForm, LeaveConfirm, Notice, OfferDetails, WaitingListPage } from "../../../../views/pages/registration/WaitingListPage.tsx";
import { DEFAULT_PACKAGE, packageOptions } from "../../../shared/registrations/rules.ts";
import { CONFIRM_HOURS, joinSchema, offerPriceText, WAITLIST_TEXT } from "../../../shared/registrations/waitingList.ts";
import { entryByLeaveToken, waitingCounts } from "../tables/entries.ts";
import { joinLine } from "../join.ts";
import { findOffer, leaveLine, takePlace } from "../accept.ts";
import { visitorKeys } from "../../../http/visitor.ts";
import type { WaitingListDeps } from "../deps.ts";
import { loadEvent, notFound, remember, type RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { toText } from "../../../shared/toText.ts";

/** A join form's values as its page shows them again: the text fields only, each cut to 400 characters. */
const keptStrings = (sent: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(sent).filter(([, v]) => typeof v === "string").map(([k, v]) => [k, (v as string).slice(0, 400)]));

/** Every waiting-list page: never cached, never indexed. */
export function waitingListPage(req: Request, res: Response, event: Pick<EventDetail, "id" | "title" | "dateText" | "location">, title: string, content: React.ReactNode, status?: number) {
  res.set("cache-control", "no-store");
  renderPage(req, res, <WaitingListPage event={event} title={title}>{content}</WaitingListPage>, {
    title: event.id === 0 || title.includes(event.title) ? title : `${title}: ${event.title}`,
    description: `The waiting list for ${event.title}, ${event.dateText}, ${event.location}.`,
    status,
    noindex: true,
  });
}

/** A token link that names nothing (unknown, used up, or its time over). */
export const linkNotValid = (req: Request, res: Response, text: string = WAITLIST_TEXT.linkUnknown) =>
  waitingListPage(req, res, { id: 0, title: "Waiting List", dateText: "", location: "" }, "Waiting List", <Notice title="Link Not Valid" eventId={0}><p>{text}</p></Notice>, 404);

/** Joins per address per minute. */
export const JOIN_RATE_LIMIT = { windowMs: 60_000, limit: 10 } as const;

export const TOKEN = /^[A-Za-z0-9_-]{20,64}$/;

/**
 * The waiting list: join (/waiting-list/{id}), leave (/waiting-list/leave/{token}) and an offer
 * (/waiting-list/offer/{token}); the confirmation link is waitlistConfirm.tsx.
 */
export function waitingListRoutes(deps: RegistrationRouteDeps & WaitingListDeps): Router {
  const router = Router();
  const limit = deps.rateLimiter({ name: "waiting-list-join", ...JOIN_RATE_LIMIT, message: "Too many attempts from your connection. Please wait a minute and try again." });

  const page = waitingListPage;

  async function joinPage(req: Request, res: Response, event: EventDetail, form: FormState, status?: number) {
    const { entries } = await waitingCounts(deps.db, event.id);
    page(req, res, event, WAITLIST_TEXT.joinTitle(event.title),
      <JoinForm eventId={event.id} form={form} packages={packageOptions(event)} maxTeam={Math.min(deps.limits.maxTeamAthletes, event.capacity)} waiting={entries} />, status);
  }

  /** An event whose id is a token-looking word would shadow the token routes: ids are numbers, so none does. */
  router.get("/waiting-list/:id", async (req, res) => {
    const event = await loadEvent(deps, req.params.id);
    if (!event) return notFound(req, res);
    await joinPage(req, res, event, { values: { kind: "individual", places: "1", registrationType: DEFAULT_PACKAGE }, errors: {} });
  });

  const joinForm = formPost({
    check: (input, event: EventDetail) => validate(joinSchema(event, Math.min(deps.limits.maxTeamAthletes, event.capacity)), input),
    page: (req, res, event, { values, errors }, status) => joinPage(req, res, event, { values: keptStrings(values), errors }, status),
    run: async (req, res, line, event) => {
      await joinLine(deps, event, line, visitorKeys(req, res));
      page(req, res, event, "Confirm Your E-mail",
        <Notice title={WAITLIST_TEXT.checkEmail} eventId={event.id}>
          <p>We sent a link to <strong>{line.email}</strong>. {WAITLIST_TEXT.confirmFirst(CONFIRM_HOURS)}</p>
        </Notice>);
    },
    refused: formError,
  });
  router.post("/waiting-list/:id", limit, async (req, res) => {
    const event = await loadEvent(deps, req.params.id);
    if (!event) return notFound(req, res);
    await joinForm(req, res, event);
  });

  async function byLeaveToken(req: Request, res: Response) {
    const token = String(req.params.token);
    const entry = TOKEN.test(token) ? await entryByLeaveToken(deps.db, token) : undefined;
    const event = entry ? await loadEvent(deps, entry.eventId) : null;
    if (!entry || !event) {
      linkNotValid(req, res);
      return undefined;
    }
    return { entry, event, token };
  }

  router.get("/waiting-list/leave/:token", deps.manageLimit, async (req, res) => {
    const found = await byLeaveToken(req, res);
    if (!found) return;
    const { entry, event, token } = found;
    if (entry.status !== "waiting" && entry.status !== "offered") {
      return page(req, res, event, "Waiting List", <Notice title="Not on the List" eventId={event.id}><p>This entry is no longer on the waiting list.</p></Notice>);
    }
    page(req, res, event, "Leave the Waiting List", <LeaveConfirm action={`/waiting-list/leave/${token}`} offered={entry.status === "offered"} />);
  });

  type LeaveFound = NonNullable<Awaited<ReturnType<typeof byLeaveToken>>>;
  const leaveForm = formPost({
    run: async (req, res, _none, found: LeaveFound) => {
      await leaveLine(deps, found.entry);
      page(req, res, found.event, "Waiting List", <Notice title="You Left the Waiting List" eventId={found.event.id}><p>{WAITLIST_TEXT.left}</p></Notice>);
    },
  });
  router.post("/waiting-list/leave/:token", deps.manageLimit, async (req, res) => {
    const found = await byLeaveToken(req, res);
    if (found) await leaveForm(req, res, found);
  });

  async function byOfferToken(req: Request, res: Response) {
    const token = String(req.params.token);
    const offer = TOKEN.test(token) ? await findOffer(deps, token) : undefined;
    const event = offer ? await loadEvent(deps, offer.entry.eventId) : null;
    if (!offer || !event) {
      linkNotValid(req, res);
      return undefined;
    }
    return { offer, event, token };
  }

  router.get("/waiting-list/offer/:token", deps.manageLimit, async (req, res) => {
    const found = await byOfferToken(req, res);
    if (!found) return;
    const { offer, event, token } = found;
    const until = offer.entry.offeredUntil ? momentText(offer.entry.offeredUntil, event.timeZone) : "";
    page(req, res, event, `Your Places at ${event.title}`,
      <OfferDetails token={token} team={offer.entry.kind === "team"} places={offer.places} untilText={until} priceText={offerPriceText(event, offer.entry)} open={offer.open} />);
  });

  type OfferFound = NonNullable<Awaited<ReturnType<typeof byOfferToken>>>;

  /** Accepting one place: it counts against the visitor's cap, their session owns its held registration, its form opens. */
  const takeForm = formPost({
    run: async (req, res, sent, { offer, event, token }: OfferFound) => {
      const place = offer.places.find((p) => String(p.placeNumber) === toText(sent.place ?? ""));
      if (!offer.open || !place || place.state !== "held") return { redirect: `/waiting-list/offer/${token}` };
      const taken = await takePlace(deps, offer.entry, place, visitorKeys(req, res));
      if (taken === "gone") return { redirect: `/waiting-list/offer/${token}` };
      if (taken === "overCap") {
        return page(req, res, event, "Waiting List", <Notice title="Too Many Places Held" eventId={event.id}><p>{WAITLIST_TEXT.visitorCap(deps.limits.maxHeldPlacesPerVisitor)}</p></Notice>, 409);
      }
      const team = offer.entry.kind === "team";
      remember(req, team ? "team" : "individual", event.id, place.reference);
      return { redirect: team ? `/team-register/${event.id}` : `/register/${event.id}` };
    },
  });
  router.post("/waiting-list/offer/:token/take", deps.manageLimit, async (req, res) => {
    const found = await byOfferToken(req, res);
    if (found) await takeForm(req, res, found);
  });

  const declineForm = formPost({
    run: async (req, res, _none, found: OfferFound) => {
      await leaveLine(deps, found.offer.entry);
      page(req, res, found.event, "Waiting List", <Notice title="Offer Declined" eventId={found.event.id}><p>{WAITLIST_TEXT.declined}</p></Notice>);
    },
  });
  router.post("/waiting-list/offer/:token/decline", deps.manageLimit, async (req, res) => {
    const found = await byOfferToken(req, res);
    if (found) await declineForm(req, res, found);
  });

  return router;
}
