import { Router } from "express";
import { checkoutRoutes } from "./checkout.tsx";
import { codeRoutes } from "./codes.tsx";
import { familyRoutes } from "./family.tsx";
import { individualRoutes } from "./individual.tsx";
import { lostConfirmationRoutes } from "./lostConfirmation.tsx";
import { manageRoutes } from "./manage.tsx";
import { manageAthleteRoutes } from "./manageAthletes.tsx";
import { manageUpgradeRoutes } from "./manageUpgrade.tsx";
import { changePaymentRoutes } from "./changePayment.tsx";
import { MANAGE_RATE_LIMIT } from "./manageLink.tsx";
import { codeGuessBudget, type RegistrationRouteDeps } from "./shared.tsx";
import { teamRoutes } from "./team.tsx";
import { waitingListRoutes } from "./waitlist.tsx";
import { waitingListConfirmRoutes } from "./waitlistConfirm.tsx";
import type { WaitingListDeps } from "../waitlist/offers.ts";

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
  router.use(familyRoutes(all));
  router.use(lostConfirmationRoutes(all));
  router.use(waitingListRoutes({ ...deps, ...all }));
  router.use(waitingListConfirmRoutes({ ...deps, ...all }));
  return router;
}
