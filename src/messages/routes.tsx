import { Router, type Request, type Response } from "express";
import type { Db } from "../db/knex.ts";
import type { Site } from "../site.ts";
import type { Outbox } from "../email/outbox.ts";
import type { RateLimiterFactory } from "../http/rateLimit.ts";
import { renderPage } from "../http/render.tsx";
import { emptyForm, formRoute, sendInvalid, validate, type FormState } from "../http/forms.ts";
import { flashToast } from "../http/pageContext.ts";
import { renderCustomApparel, renderHome } from "../home/pages.tsx";
import { contactSchema, newsletterSchema, NEWSLETTER_MESSAGES, QUOTE_MESSAGES, quoteSchema } from "./schemas.ts";
import { saveContactMessage, saveQuoteRequest, subscribeToNewsletter } from "./repository.ts";
import { markSent, takeSent } from "./session.ts";
import { ContactPage } from "../../views/pages/contact/ContactPage.tsx";

export interface MessagesDeps {
  db: Db;
  site: Site;
  outbox: Outbox;
  brandInbox: string;
  rateLimiter: RateLimiterFactory;
}

/** Each form endpoint (page post and JSON API together) allows this many posts per visitor per window. */
export const MESSAGE_RATE_LIMIT = { windowMs: 15 * 60_000, limit: 20 } as const;
const RATE_LIMITED = "Too many messages from your connection. Please wait a few minutes and try again.";

const NEWSLETTER_SOURCE = "home";

/** Contact messages, custom quote requests and newsletter sign-ups: page forms that work without JavaScript, and their JSON APIs. */
export function messagesRoutes({ db, site, outbox, brandInbox, rateLimiter }: MessagesDeps): Router {
  const router = Router();
  const limit = (name: string) => rateLimiter({ name, ...MESSAGE_RATE_LIMIT, message: RATE_LIMITED });
  const contactLimit = limit("contact");
  const quoteLimit = limit("quote");
  const newsletterLimit = limit("newsletter");

  const contactPage = (req: Request, res: Response, contact: { form: FormState; sent: boolean }, status?: number) =>
    renderPage(req, res, <ContactPage site={site} contact={contact} />, {
      title: "Contact",
      description: `Contact ${site.displayName}: questions about camps, orders and custom team apparel. E-mail, phone and mailing address.`,
      status,
    });

  // ---- contact ----
  router.get("/contact", (req, res) => contactPage(req, res, { form: emptyForm, sent: takeSent(req, "contact") }));
  router.post(
    "/contact",
    contactLimit,
    formRoute(contactSchema, {
      invalid: (req, res, form) => contactPage(req, res, { form, sent: false }, 400),
      valid: async (req, res, message) => {
        await saveContactMessage(db, message, brandInbox);
        outbox.wake();
        markSent(req, "contact");
        res.redirect(303, "/contact");
      },
    }),
  );
  router.post("/api/contact", contactLimit, async (req, res) => {
    const result = validate(contactSchema, req.body ?? {});
    if (!result.ok) return sendInvalid(res, result);
    const id = await saveContactMessage(db, result.data, brandInbox);
    outbox.wake();
    res.status(201).json({ success: true, id, message: "Message sent" });
  });

  // ---- custom apparel quote ----
  router.post(
    "/custom-apparel/quote",
    quoteLimit,
    formRoute(quoteSchema, {
      invalid: (req, res, form) => renderCustomApparel(req, res, { form, sent: false }, 400),
      valid: async (req, res, quote) => {
        await saveQuoteRequest(db, quote, brandInbox);
        outbox.wake();
        markSent(req, "quote");
        flashToast(req, { ...QUOTE_MESSAGES.sent, variant: "success" });
        res.redirect(303, "/custom-apparel#contact-form");
      },
    }),
  );
  router.post("/api/quote-requests", quoteLimit, async (req, res) => {
    const result = validate(quoteSchema, req.body ?? {});
    if (!result.ok) return sendInvalid(res, result);
    const id = await saveQuoteRequest(db, result.data, brandInbox);
    outbox.wake();
    res.status(201).json({ success: true, id, message: QUOTE_MESSAGES.sent.description });
  });

  // ---- newsletter ----
  router.post(
    "/newsletter",
    newsletterLimit,
    formRoute(newsletterSchema, {
      invalid: (req, res, form) => renderHome(req, res, { db, site }, { form, subscribed: false }, 400),
      valid: async (req, res, signup) => {
        const { created } = await subscribeToNewsletter(db, signup, NEWSLETTER_SOURCE, brandInbox);
        if (created) outbox.wake();
        markSent(req, "newsletter");
        flashToast(req, { ...NEWSLETTER_MESSAGES.subscribed, variant: "success" });
        res.redirect(303, "/#newsletter");
      },
    }),
  );
  router.post("/api/newsletter", newsletterLimit, async (req, res) => {
    const result = validate(newsletterSchema, req.body ?? {});
    if (!result.ok) return sendInvalid(res, result);
    const { created } = await subscribeToNewsletter(db, result.data, NEWSLETTER_SOURCE, brandInbox);
    if (created) outbox.wake();
    res.status(created ? 201 : 200).json({ success: true, subscribed: true, message: NEWSLETTER_MESSAGES.subscribed.title });
  });

  return router;
}
