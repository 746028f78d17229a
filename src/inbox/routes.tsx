import { Router, type Request, type Response } from "express";
import type * as z from "zod/mini";
import type { Db } from "../db/knex.ts";
import type { Site } from "../shared/site.ts";
import type { Outbox } from "../email/outbox.ts";
import type { RateLimiterFactory } from "../http/rateLimit.ts";
import { renderPage } from "../http/render.tsx";
import { emptyForm, validate, type FormState } from "../shared/forms.ts";
import { formPost, jsonPost } from "../http/forms.ts";
import { markFormSent, takeFormSent } from "../http/pageContext.ts";
import type { ToastMessage } from "../../views/components/Toast.tsx";
import { contactSchema, newsletterSchema, NEWSLETTER_MESSAGES, QUOTE_MESSAGES, quoteSchema } from "../shared/inbox/schemas.ts";
import { saveContactMessage, saveQuoteRequest, subscribeToNewsletter } from "./repository.ts";
import { ContactPage } from "../../views/pages/contact/ContactPage.tsx";

export interface MessagesDeps {
  db: Db;
  outbox: Outbox;
  brandInbox: string;
  rateLimiter: RateLimiterFactory;
}

/** Each form endpoint (page post and JSON API together) allows this many posts per visitor per window. */
export const MESSAGE_RATE_LIMIT = { windowMs: 15 * 60_000, limit: 20 } as const;
const RATE_LIMITED = "Too many messages from your connection. Please wait a few minutes and try again.";

const NEWSLETTER_SOURCE = "home";

export type MessageFormId = "contact" | "quote" | "newsletter";

/** The page a message form sits on, re-rendered with the form's errors after a post without JavaScript. */
export type FormPage = (req: Request, res: Response, form: FormState, status: number) => void | Promise<void>;

interface MessageForm<S extends z.core.$ZodType> {
  /** The form post (no JavaScript) and its JSON twin. */
  post: string;
  api: string;
  schema: S;
  /** Stores the message (its e-mail to the brand queued in the same transaction); the JSON answer. */
  save: (data: z.output<S>) => Promise<{ status: number; body: object; queuedEmail: boolean }>;
  /** Where the form post goes after sending, and the toast it shows there. */
  sentRedirect: string;
  sentToast?: ToastMessage;
}

/**
 * Contact messages, custom quote requests and newsletter sign-ups: each a page form that works without
 * JavaScript and its JSON API, mounted by the feature that owns the page the form is on.
 */
export function messageForms({ db, outbox, brandInbox, rateLimiter }: MessagesDeps) {
  const forms = {
    contact: {
      post: "/contact",
      api: "/api/contact",
      schema: contactSchema,
      save: async (m) => ({ status: 201, body: { success: true, id: await saveContactMessage(db, m, brandInbox), message: "Message sent" }, queuedEmail: true }),
      sentRedirect: "/contact",
    } satisfies MessageForm<typeof contactSchema>,
    quote: {
      post: "/custom-apparel/quote",
      api: "/api/quote-requests",
      schema: quoteSchema,
      save: async (q) => ({ status: 201, body: { success: true, id: await saveQuoteRequest(db, q, brandInbox), message: QUOTE_MESSAGES.sent.description }, queuedEmail: true }),
      sentRedirect: "/custom-apparel#contact-form",
      sentToast: QUOTE_MESSAGES.sent,
    } satisfies MessageForm<typeof quoteSchema>,
    newsletter: {
      post: "/newsletter",
      api: "/api/newsletter",
      schema: newsletterSchema,
      save: async (s) => {
        // Signing up again is harmless and does not e-mail the brand again.
        const { created } = await subscribeToNewsletter(db, s, NEWSLETTER_SOURCE, brandInbox);
        return { status: created ? 201 : 200, body: { success: true, subscribed: true, message: NEWSLETTER_MESSAGES.subscribed.title }, queuedEmail: created };
      },
      sentRedirect: "/#newsletter",
      sentToast: NEWSLETTER_MESSAGES.subscribed,
    } satisfies MessageForm<typeof newsletterSchema>,
  };

  /** The one way a message form is served: the page post and the JSON API share the rules, the limit and the save. */
  function mount<S extends z.core.$ZodType>(router: Router, id: MessageFormId, form: MessageForm<S>, page: FormPage): void {
    const limit = rateLimiter({ name: id, ...MESSAGE_RATE_LIMIT, message: RATE_LIMITED });
    const save = async (data: z.output<S>) => {
      const answer = await form.save(data);
      if (answer.queuedEmail) outbox.wake();
      return answer;
    };
    router.post(
      form.post,
      limit,
      formPost({
        check: (input) => validate(form.schema, input),
        page: (req, res, _none, state, status) => page(req, res, state, status),
        run: async (req, _res, data) => {
          await save(data);
          markFormSent(req, id);
          return { redirect: form.sentRedirect, toast: form.sentToast && { ...form.sentToast, variant: "success" } };
        },
      }),
    );
    router.post(
      form.api,
      limit,
      jsonPost({
        check: (input) => validate(form.schema, input),
        run: async (_req, _res, data) => {
          const answer = await save(data);
          return { status: answer.status, json: answer.body };
        },
      }),
    );
  }

  return {
    /** Serves a message form on `router`; `page` renders the page the form is on (with its errors, status 400). */
    mount: (router: Router, id: MessageFormId, page: FormPage) => mount(router, id, forms[id] as MessageForm<z.core.$ZodType>, page),
    /** Whether the form was just sent without JavaScript (its page shows the confirmation once). */
    takeSent: (req: Request, id: MessageFormId) => takeFormSent(req, id),
  };
}

export type MessageForms = ReturnType<typeof messageForms>;

/** The contact page and its form. */
export function contactRoutes({ site, forms }: { site: Site; forms: MessageForms }): Router {
  const router = Router();
  const contactPage = (req: Request, res: Response, contact: { form: FormState; sent: boolean }, status = 200) =>
    renderPage(req, res, <ContactPage site={site} contact={contact} />, {
      title: "Contact",
      description: `Contact ${site.displayName}: questions about camps, orders and custom team apparel. E-mail, phone and mailing address.`,
      sameForStatelessVisitors: true,
      status,
    });
  router.get("/contact", (req, res) => contactPage(req, res, { form: emptyForm, sent: forms.takeSent(req, "contact") }));
  forms.mount(router, "contact", (req, res, form, status) => contactPage(req, res, { form, sent: false }, status));
  return router;
}
