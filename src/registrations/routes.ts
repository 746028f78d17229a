import { Router } from "express";
import { checkoutRoutes } from "./booking/routes/checkout.routes.tsx";
import { codeRoutes } from "./booking/routes/codes.routes.tsx";
import { familyRoutes } from "./changes/routes/family.routes.tsx";
import { individualRoutes } from "./booking/routes/individual.routes.tsx";
import { lostConfirmationRoutes } from "./changes/routes/lostConfirmation.routes.tsx";
import { manageRoutes } from "./changes/routes/manage.routes.tsx";
import { manageAthleteRoutes } from "./changes/routes/manageAthletes.routes.tsx";
import { manageUpgradeRoutes } from "./changes/routes/manageUpgrade.routes.tsx";
import { changePaymentRoutes } from "./changes/routes/changePayment.routes.tsx";
import { manageBalanceRoutes } from "./changes/routes/manageBalance.routes.tsx";
import { MANAGE_RATE_LIMIT } from "./changes/routes/manageLink.tsx";
import { codeGuessBudget, type RegistrationRouteDeps } from "./core/routeKit.tsx";
import { teamRoutes } from "./booking/routes/team.routes.tsx";
import { waitingListRoutes } from "./waitlist/routes/waitlist.routes.tsx";
import { waitingListConfirmRoutes } from "./waitlist/routes/waitlistConfirm.routes.tsx";
import type { WaitingListDeps } from "./waitlist/offers.ts";

/** Every URL of the registration aggregate, one handler each: one router per file, mounted one per line. */
export function registrationRoutes(deps: Omit<RegistrationRouteDeps, "codeGuesses" | "manageLimit"> & WaitingListDeps): Router {
  const all: RegistrationRouteDeps = {
    ...deps,
    codeGuesses: codeGuessBudget(deps.rateLimiter),
    manageLimit: deps.rateLimiter({ name: "registration-manage", ...MANAGE_RATE_LIMIT }),
  };
  const router = Router();
  router.use(individualRoutes(all));
  router.use(teamRoutes(all));
  router.use(checkoutRoutes(all));
  router.use(codeRoutes(all));
  router.use(manageRoutes(all));
  router.use(manageUpgradeRoutes(all));
  router.use(manageAthleteRoutes(all));
  router.use(changePaymentRoutes(all));
  router.use(manageBalanceRoutes(all));
  router.use(familyRoutes(all));
  router.use(lostConfirmationRoutes(all));
  router.use(waitingListRoutes({ ...deps, ...all }));
  router.use(waitingListConfirmRoutes({ ...deps, ...all }));
  return router;
}
