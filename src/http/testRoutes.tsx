import { Router } from "express";
import { createElement } from "react";
import * as z from "zod/mini";
import { renderPage } from "./render.tsx";
import { emptyForm, type FormState } from "../shared/forms.ts";
import { formPost } from "./forms.ts";
import { singleLine } from "../shared/text.ts";
import type { RateLimiterFactory } from "./rateLimit.ts";
import { TestPage } from "../../views/pages/TestPage.tsx";

/**
 * Fixtures for the foundation's own tests (widget hydration, the form helper, error pages, draining on shutdown).
 * Mounted only when ENABLE_TEST_ROUTES=1, which production refuses.
 */
export function testRoutes({ rateLimiter }: { rateLimiter: RateLimiterFactory }): Router {
  const router = Router();
  const schema = z.object({ name: singleLine().check(z.minLength(2, "Name must be at least 2 characters")) });
  const page = (req: Parameters<typeof renderPage>[0], res: Parameters<typeof renderPage>[1], form: FormState, status?: number) =>
    renderPage(req, res, createElement(TestPage, { form }), { title: "Test", description: "Test fixture", status, noindex: true });

  router.get("/widget", (req, res) => page(req, res, emptyForm));
  router.post(
    "/form",
    rateLimiter({ name: "test-form", windowMs: 60_000, limit: 1000 }),
    formPost({
      check: schema,
      page: (req, res, _none, state, status) => page(req, res, state, status),
      run: async (_req, _res, data) => ({ redirect: "/__test/widget", toast: { title: "Saved", description: `Hello ${data.name}`, variant: "success" } }),
    }),
  );
  router.get("/boom", () => {
    throw new Error("secret internal detail");
  });
  // The status line and headers go out at once, so a test knows the request is in flight before the body ends.
  router.get("/slow", async (req, res) => {
    res.status(200).type("application/json").flushHeaders();
    await new Promise((r) => setTimeout(r, Number(req.query.ms ?? 1000)));
    res.end(JSON.stringify({ done: true }));
  });
  // Not a form: it answers the parsed body as it arrived, for the body parser's own tests.
  router.post("/echo", (req, res) => res.json({ ok: true, body: req.body as unknown }));
  return router;
}
