import { Router } from "express";
import type { RegistrationRouteDeps } from "../../core/routeKit.tsx";
import { changePaymentRoutes } from "./changePayment.routes.tsx";
import { familyRoutes } from "./family.routes.tsx";
import { lostConfirmationRoutes } from "./lostConfirmation.routes.tsx";
import { manageRoutes } from "./manage.routes.tsx";
import { manageAthleteRoutes } from "./manageAthletes.routes.tsx";
import { manageBalanceRoutes } from "./manageBalance.routes.tsx";
import { manageUpgradeRoutes } from "./manageUpgrade.routes.tsx";

/** The changes part's URLs after payment (the manage link and what it opens, family links, a lost confirmation), one router per file. */
export function changeRoutes(deps: RegistrationRouteDeps): Router {
  const router = Router();
  router.use(manageRoutes(deps));
  router.use(manageUpgradeRoutes(deps));
  router.use(manageAthleteRoutes(deps));
  router.use(changePaymentRoutes(deps));
  router.use(manageBalanceRoutes(deps));
  router.use(familyRoutes(deps));
  router.use(lostConfirmationRoutes(deps));
  return router;
}
