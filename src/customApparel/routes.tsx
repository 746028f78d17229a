import { Router, type Request, type Response } from "express";
import { renderPage } from "../http/render.tsx";
import { emptyForm, type FormState } from "../shared/forms.ts";
import type { MessageForms } from "../inbox/routes.tsx";
import { findPortfolioItem } from "../shared/customApparel/content.ts";
import { CustomApparelPage } from "../../views/pages/apparel/CustomApparelPage.tsx";

/** /custom-apparel with its quote form (the quote goes to the brand's inbox). */
export function customApparelRoutes({ forms }: { forms: MessageForms }): Router {
  const router = Router();

  function customApparel(req: Request, res: Response, quote: { form: FormState; sent: boolean }, status = 200) {
    renderPage(req, res, <CustomApparelPage quote={quote} />, {
      title: "Custom Team Apparel",
      description: "Custom wrestling singlets, rashguards, warmups and team packages designed for your program. Request a free quote.",
      sameForStatelessVisitors: true,
      status,
    });
  }

  router.get("/custom-apparel", (req, res) => {
    const design = findPortfolioItem(typeof req.query.design === "string" ? req.query.design : undefined);
    const form = design ? { values: { referenceDesign: design.name }, errors: {} } : emptyForm;
    customApparel(req, res, { form, sent: forms.takeSent(req, "quote") });
  });
  forms.mount(router, "quote", (req, res, form, status) => customApparel(req, res, { form, sent: false }, status));
  return router;
}
