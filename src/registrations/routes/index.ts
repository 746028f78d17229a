import { Router } from "express";
import { checkoutRoutes } from "./checkout.tsx";
import { codeRoutes } from "./codes.tsx";
import { individualRoutes } from "./individual.tsx";
import { manageRoutes } from "./manage.tsx";
import { manageChangeRoutes } from "./manageChanges.tsx";
import { codeGuessBudget, type RegistrationRouteDeps } from "./shared.tsx";
import { teamRoutes } from "./team.tsx";
import { waitingListRoutes } from "./waitlist.tsx";
import type { WaitingListDeps } from "../waitlist/offers.ts";

/** Every URL of the registration aggregate, one handler each. */
export function registrationRoutes(deps: Omit<RegistrationRouteDeps, "codeGuesses"> & WaitingListDeps): Router {
  const all: RegistrationRouteDeps = { ...deps, codeGuesses: codeGuessBudget(deps.rateLimiter) };
  const router = Router();
  router.use(individualRoutes(all), teamRoutes(all), checkoutRoutes(all), codeRoutes(all), manageRoutes(all), manageChangeRoutes(all), waitingListRoutes({ ...deps, ...all }));
  return router;
}
