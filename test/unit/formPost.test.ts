import { describe, expect, it } from "vitest";
import express, { type ErrorRequestHandler, type Request } from "express";
import request from "supertest";
import * as z from "zod/mini";
import { DomainError } from "../../src/errors.ts";
import type { FormState } from "../../src/shared/forms.ts";
import { formError, formPost, jsonPost, toastBack } from "../../src/http/forms.ts";

/** The one form kit on a bare Express app: a session object per request to read the flashed toast, an error handler that says what reached it. */
function appWith(mount: (app: express.Express, seen: { page?: { state: FormState; status: number; ctx: unknown }; ran: number }) => void) {
  const seen: { page?: { state: FormState; status: number; ctx: unknown }; ran: number; session?: Record<string, unknown> } = { ran: 0 };
  const app = express();
  app.use(express.urlencoded({ extended: true }), express.json());
  app.use((req, _res, next) => {
    seen.session = {};
    (req as unknown as { session: unknown }).session = seen.session;
    (req as unknown as { log: unknown }).log = { error: () => undefined, info: () => undefined };
    next();
  });
  mount(app, seen);
  const errors: ErrorRequestHandler = (err: Error, _req, res, _next) => {
    res.status(599).json({ reachedErrorHandler: err.message });
  };
  app.use(errors);
  return { app, seen };
}

const schema = z.object({ name: z.string().check(z.minLength(2, "Name must be at least 2 characters")), age: z.optional(z.string()) });

function nameForm(run: (name: string) => Promise<void>, hooks: { refused?: typeof formError } = {}) {
  return appWith((app, seen) => {
    const post = formPost({
      check: schema,
      page: (_req, res, ctx, state, status) => {
        seen.page = { state, status, ctx };
        res.status(status).send(`page ${status}`);
      },
      run: async (_req, _res, data) => {
        seen.ran += 1;
        await run(data.name);
        return { redirect: "/done", toast: { title: "Saved", description: `Hello ${data.name}`, variant: "success" } };
      },
      ...hooks,
    });
    app.post("/form", (req, res) => post(req, res));
  });
}

describe("formPost: a form post without JavaScript", () => {
  it("re-renders the page with 400, the errors and the values kept (without the CSRF token), and runs nothing", async () => {
    const { app, seen } = nameForm(async () => undefined);
    await request(app).post("/form").type("form").send({ _csrf: "token", name: "A", age: "12" }).expect(400, "page 400");
    expect(seen.ran).toBe(0);
    expect(seen.page?.state).toEqual({ values: { name: "A", age: "12" }, errors: { name: "Name must be at least 2 characters" } });
    expect(seen.session?.toast).toBeUndefined();
  });

  it("runs the use case and answers 303 to its redirect, with its toast flashed for the next page", async () => {
    const { app, seen } = nameForm(async () => undefined);
    const res = await request(app).post("/form").type("form").send({ _csrf: "token", name: "Ada" }).expect(303);
    expect(res.headers.location).toBe("/done");
    expect(seen.ran).toBe(1);
    expect(seen.session?.toast).toEqual({ title: "Saved", description: "Hello Ada", variant: "success" });
  });

  it("shows a DomainError as `refused` says: the form again with its message, at the error's status, values kept", async () => {
    const { app, seen } = nameForm(async () => {
      throw new DomainError("conflict", "Only 2 left");
    }, { refused: formError });
    await request(app).post("/form").type("form").send({ name: "Ada" }).expect(409, "page 409");
    expect(seen.page?.state).toEqual({ values: { name: "Ada" }, errors: { _form: "Only 2 left" } });
    expect(seen.session?.toast).toBeUndefined();
  });

  it("leaves a DomainError to the error handler without `refused`, and an unavailable service always", async () => {
    const plain = nameForm(async () => {
      throw new DomainError("conflict", "Only 2 left");
    });
    await request(plain.app).post("/form").type("form").send({ name: "Ada" }).expect(599, { reachedErrorHandler: "Only 2 left" });
    const down = nameForm(async () => {
      throw new DomainError("unavailable", "Session store down");
    }, { refused: formError });
    await request(down.app).post("/form").type("form").send({ name: "Ada" }).expect(599, { reachedErrorHandler: "Session store down" });
    expect(down.seen.page).toBeUndefined();
  });

  it("a refusal can carry its own errors and status, and any other error goes to `failed` when the form has one", async () => {
    const { app, seen } = appWith((a, s) => {
      const post = formPost({
        page: (_req, res, _ctx, state, status) => {
          s.page = { state, status, ctx: undefined };
          res.status(status).send("page");
        },
        run: async (req) => {
          if (req.body.kind === "code") throw new DomainError("invalid", "Code used up");
          throw new Error("database gone");
        },
        refused: (_req, _res, err) => ({ errors: { discountCode: err.message }, status: 422 }),
        failed: () => ({ errors: { _form: "Please try again" }, status: 503 }),
      });
      a.post("/form", (req, res) => post(req, res));
    });
    await request(app).post("/form").type("form").send({ kind: "code" }).expect(422);
    expect(seen.page?.state.errors).toEqual({ discountCode: "Code used up" });
    await request(app).post("/form").type("form").send({ kind: "crash" }).expect(503);
    expect(seen.page?.state.errors).toEqual({ _form: "Please try again" });
  });

  it("hands the route's context to every step, and a form without a page of its own toasts and goes back", async () => {
    const { app, seen } = appWith((a) => {
      const post = formPost({
        check: (input, ctx: { eventId: number }) => (input.quantity === "1" ? { ok: true, data: ctx.eventId } : { ok: false, errors: { quantity: "Quantity must be 1" }, message: "Quantity must be 1" }),
        page: toastBack("Error", (req: Request) => `/back/${String(req.params.id)}`),
        run: async (_req, _res, eventId) => ({ redirect: `/events/${eventId}` }),
      });
      a.post("/form/:id", (req, res) => post(req, res, { eventId: 7 }));
    });
    let res = await request(app).post("/form/3").type("form").send({ quantity: "2" }).expect(303);
    expect(res.headers.location).toBe("/back/3");
    expect(seen.session?.toast).toEqual({ title: "Error", description: "Quantity must be 1", variant: "destructive" });
    res = await request(app).post("/form/3").type("form").send({ quantity: "1" }).expect(303);
    expect(res.headers.location).toBe("/events/7");
  });
});

describe("jsonPost: the JSON twin", () => {
  function nameJson(run: () => Promise<void>) {
    return appWith((app, seen) => {
      const post = jsonPost({
        check: schema,
        run: async (_req, _res, data) => {
          seen.ran += 1;
          await run();
          return { status: 201, json: { success: true, name: data.name } };
        },
      });
      app.post("/api/form", (req, res) => post(req, res));
    });
  }

  it("answers an invalid body 400 with the spec's shape: the first message in `error`, every field's in `fieldErrors`", async () => {
    const { app, seen } = nameJson(async () => undefined);
    const res = await request(app).post("/api/form").send({ name: "A" }).expect(400);
    expect(res.body).toEqual({ success: false, error: "Name must be at least 2 characters", fieldErrors: { name: "Name must be at least 2 characters" } });
    expect(seen.ran).toBe(0);
  });

  it("answers what the use case returns, with its status", async () => {
    const { app } = nameJson(async () => undefined);
    await request(app).post("/api/form").send({ name: "Ada" }).expect(201, { success: true, name: "Ada" });
  });

  it("leaves a DomainError to the error handler, unless `refused` answers it", async () => {
    const plain = nameJson(async () => {
      throw new DomainError("conflict", "Only 2 left");
    });
    await request(plain.app).post("/api/form").send({ name: "Ada" }).expect(599, { reachedErrorHandler: "Only 2 left" });
    const { app } = appWith((a) => {
      const post = jsonPost({
        check: schema,
        invalid: ({ message }) => ({ status: 400, json: { success: false, error: message, userFriendlyMessage: "Please check the form" } }),
        run: async () => {
          throw new DomainError("conflict", "Only 2 left");
        },
        refused: (_req, _res, err) => ({ status: 409, json: { success: false, title: "Sold Out", error: err.message } }),
      });
      a.post("/api/form", (req, res) => post(req, res));
    });
    await request(app).post("/api/form").send({ name: "Ada" }).expect(409, { success: false, title: "Sold Out", error: "Only 2 left" });
    await request(app).post("/api/form").send({}).expect(400);
  });
});
