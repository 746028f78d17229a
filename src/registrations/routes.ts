import { Router } from "express";
import { checkoutRoutes } from "./booking/routes/checkout.routes.tsx";
import { codeRoutes } from "./booking/routes/codes.routes.tsx";
import { individualRoutes } from "./booking/routes/individual.routes.tsx";
import { changeRoutes } from "./changes/routes/changes.routes.tsx";
import { MANAGE_RATE_LIMIT } from "./changes/routes/manageLink.tsx";
import { codeGuessBudget, type RegistrationRouteDeps } from "./core/routeKit.tsx";
import { teamRoutes } from "./booking/routes/team.routes.tsx";
import { returningRoutes } from "./booking/routes/returning.routes.tsx";
import { teamInviteRoutes } from "./booking/routes/teamInvite.routes.tsx";
import { waitingListRoutes } from "./waitlist/routes/waitlist.routes.tsx";
import { waitingListConfirmRoutes } from "./waitlist/routes/waitlistConfirm.routes.tsx";
import type { WaitingListDeps } from "./waitlist/deps.ts";

/** Every URL of the registration aggregate, one handler each: one router per file (the changes part mounts its own: changes/routes/changes.routes.tsx). */
export function registrationRoutes(deps: Omit<RegistrationRouteDeps, "codeGuesses" | "manageLimit"> & WaitingListDeps): Router {
  const all: RegistrationRouteDeps = {
    ...deps,
    codeGuesses: codeGuessBudget(deps.rateLimiter),
    manageLimit: deps.rateLimiter({ name: "registration-manage", ...MANAGE_RATE_LIMIT }),
  };
  const router = Router();
  router.use(individualRoutes(all));
  router.use(teamRoutes(all));
  router.use(returningRoutes(all));
  router.use(teamInviteRoutes(all));
  router.use(checkoutRoutes(all));
  router.use(codeRoutes(all));
  router.use(changeRoutes(all));
  router.use(waitingListRoutes({ ...deps, ...all }));
  router.use(waitingListConfirmRoutes({ ...deps, ...all }));
  return router;
}
