import { Router } from "express";
import type { Site } from "../shared/site.ts";
import { shipsStartingNote } from "../shared/catalogue/rules.ts";
import { renderPage } from "../http/render.tsx";
import { AgreementPage, CancellationPolicyPage } from "../../views/pages/policies/CampPolicyPages.tsx";
import { CAMP_POLICY_PATHS, LIABILITY_WAIVER, MEDICAL_RELEASE } from "../shared/registrations/agreements.ts";
import { PrivacyPolicyPage, ReturnsPolicyPage, ShippingPolicyPage, TermsPage } from "../../views/pages/policies/PolicyPages.tsx";

/** /shipping, /returns, /privacy, /terms: written from the business constants and what the site stores. */
export function policyRoutes({ site, flatRateCents, brandInbox }: { site: Site; flatRateCents: number; brandInbox: string }): Router {
  const router = Router();
  router.get("/shipping", (req, res) =>
    renderPage(req, res, <ShippingPolicyPage site={site} flatRateCents={flatRateCents} shipsLater={shipsStartingNote(site.shipsStarting, new Date())} />, {
      title: "Shipping Policy",
      description: "Free shipping on orders over $75, a flat rate otherwise; delivery times and where we ship.",
      sameForStatelessVisitors: true,
    }),
  );
  router.get("/returns", (req, res) =>
    renderPage(req, res, <ReturnsPolicyPage site={site} />, {
      title: "Returns Policy",
      description: "30-day returns of unworn, unwashed items in their original packaging; custom team orders are final sale unless defective.",
      sameForStatelessVisitors: true,
    }),
  );
  router.get("/privacy", (req, res) =>
    renderPage(req, res, <PrivacyPolicyPage site={site} brandInbox={brandInbox} />, {
      title: "Privacy Policy",
      description: "What we store about you, why, for how long, and who else receives it.",
      sameForStatelessVisitors: true,
    }),
  );
  router.get("/terms", (req, res) =>
    renderPage(req, res, <TermsPage site={site} />, {
      title: "Terms",
      description: `The terms for buying from ${site.displayName} and registering for its camps.`,
      sameForStatelessVisitors: true,
    }),
  );
  router.get(CAMP_POLICY_PATHS.cancellation, (req, res) =>
    renderPage(req, res, <CancellationPolicyPage site={site} />, {
      title: "Camp Refund and Cancellation Policy",
      description: "What a camp cancellation refunds, by how long before the first day, and until when a registration can change.",
      sameForStatelessVisitors: true,
    }),
  );
  for (const text of [LIABILITY_WAIVER, MEDICAL_RELEASE]) {
    router.get(text.path, (req, res) =>
      renderPage(req, res, <AgreementPage text={text} />, { title: text.title, description: `The camp's ${text.title.toLowerCase()}, version ${text.version}.`, sameForStatelessVisitors: true }),
    );
  }
  return router;
}
