import type { Request, Response } from "express";
import type * as z from "zod/mini";
import { DomainError } from "../errors.ts";
import { domainErrorStatus } from "./errors.ts";
import { flashToast } from "./pageContext.ts";
import { validate, type FieldErrors, type FormState, type Validation } from "../shared/forms.ts";

/**
 * The one way a form post and its JSON twin are handled (the server half of the form kit; `validate` and the form
 * state are the browser-safe half in src/shared/forms.ts). A route first loads what the post is about (the event, the opened
 * link) and answers its own 404; then the kit reads the body, checks it, re-shows the form or answers the JSON 400,
 * runs the use case, maps its DomainError and ends with a 303 (and a toast) or the JSON answer.
 */

/** The posted form or JSON body, each field still unchecked (Express types it as any). */
export function formBody(req: Request): Record<string, unknown> {
  return (req.body ?? {}) as Record<string, unknown>;
}

/** What a form post sent, without its CSRF token: what is checked and, when refused, shown again. */
function sentFields(req: Request): Record<string, unknown> {
  const { _csrf: _token, ...values } = formBody(req);
  return values;
}

type Toast = Parameters<typeof flashToast>[1];
type Invalid = Extract<Validation<unknown>, { ok: false }>;

/** A form post that went through: 303 to `redirect`, with a toast on the page it lands on. */
export interface Redirect {
  redirect: string;
  toast?: Toast;
}

/** A refused form post: its page again with these errors and the values kept, at `status` (default: the error's). */
export interface Refusal {
  errors: FieldErrors;
  status?: number;
}

/** A JSON answer: `json` with `status` (200 when unset). */
export interface JsonAnswer {
  status?: number;
  json: object;
}

/** The zod schema of the body, or a validator for a form whose shape needs one (it may read the post's context). */
export type Check<C, T> = z.core.$ZodType<T> | ((input: Record<string, unknown>, ctx: C) => Validation<T>);

/** What a route calls once it has loaded what the post is about; a post about nothing in particular is a plain handler. */
export type PostHandler<C> = [C] extends [void]
  ? (req: Request, res: Response) => Promise<void>
  : (req: Request, res: Response, ctx: C) => Promise<void>;

interface Hooks<C, A> {
  /** A DomainError from `run` (but `unavailable`, which is always the 503 page): how this post shows it. */
  refused?: (req: Request, res: Response, err: DomainError, ctx: C) => A | Promise<A>;
  /** Any other error from `run`, where the post answers instead of the error page (nothing was saved). */
  failed?: (req: Request, res: Response, err: unknown, ctx: C) => A | Promise<A>;
}

export interface FormPost<C, T> extends Hooks<C, Refusal | Redirect | void> {
  /** What is checked and kept; by default the posted fields without the token. */
  input?: (req: Request, ctx: C) => Record<string, unknown>;
  check?: Check<C, T>;
  /** The form's page again, with the errors and the values kept (400 for invalid input). */
  page?: (req: Request, res: Response, ctx: C, state: FormState, status: number) => void | Promise<void>;
  /** The use case; nothing returned means it rendered its own answer (a confirmation page). */
  run: (req: Request, res: Response, data: T, ctx: C) => Promise<Redirect | void>;
}

export interface JsonPost<C, T> extends Hooks<C, JsonAnswer> {
  /** What is checked; by default the body. */
  input?: (req: Request, ctx: C) => Record<string, unknown>;
  check?: Check<C, T>;
  /** The answer to an invalid body; by default `invalidJson`. */
  invalid?: (result: Invalid, ctx: C) => JsonAnswer;
  run: (req: Request, res: Response, data: T, ctx: C) => Promise<JsonAnswer>;
}

function checked<C, T>(check: Check<C, T> | undefined, input: Record<string, unknown>, ctx: C): Validation<T> {
  if (!check) return { ok: true, data: input as T };
  return typeof check === "function" ? check(input, ctx) : validate(check, input);
}

/** Runs the use case; a refusal goes to `refused`, anything else to `failed`, and without a hook to the error handler. */
async function settle<C, A>(hooks: Hooks<C, A>, req: Request, res: Response, ctx: C, run: () => Promise<A>): Promise<{ answer: A; err?: unknown }> {
  try {
    return { answer: await run() };
  } catch (err) {
    if (err instanceof DomainError && err.kind !== "unavailable" && hooks.refused) return { answer: await hooks.refused(req, res, err, ctx), err };
    if (hooks.failed) return { answer: await hooks.failed(req, res, err, ctx), err };
    throw err;
  }
}

/** The JSON 400 of the spec: the first message in `error`, and every field's message. */
function invalidJson(result: Invalid): JsonAnswer {
  return { status: 400, json: { success: false, error: result.message, fieldErrors: result.errors } };
}

/** The refusal's message above the form (`_form`), at the error's status. */
export const formError = (_req: Request, _res: Response, err: DomainError): Refusal => ({ errors: { _form: err.message } });

/**
 * The "page" of a form that has none of its own (a cart button, a code box): its first message as a toast titled
 * `title`, and 303 back to `to`.
 */
export function toastBack<C>(title: string, to: (req: Request) => string) {
  return (req: Request, res: Response, _ctx: C, state: FormState): void => {
    flashToast(req, { title, description: Object.values(state.errors)[0], variant: "destructive" });
    res.redirect(303, to(req));
  };
}

/**
 * A form post that works without JavaScript: invalid input re-renders `page` (400) with the errors and the values
 * kept; valid input runs the use case, which ends with a 303 (and a toast); a DomainError is shown as `refused` says.
 */
export function formPost<C = void, T = Record<string, unknown>>(spec: FormPost<C, T>): PostHandler<C> {
  const handle = async (req: Request, res: Response, ctx: C): Promise<void> => {
    const values = spec.input ? spec.input(req, ctx) : sentFields(req);
    const result = checked(spec.check, values, ctx);
    if (!result.ok) return showPage(req, res, ctx, { values, errors: result.errors }, 400);
    const { answer, err } = await settle(spec, req, res, ctx, () => spec.run(req, res, result.data, ctx));
    if (!answer) return;
    if ("redirect" in answer) {
      if (answer.toast) flashToast(req, answer.toast);
      return res.redirect(303, answer.redirect);
    }
    await showPage(req, res, ctx, { values, errors: answer.errors }, answer.status ?? (err instanceof DomainError ? domainErrorStatus(err) : 500));
  };
  async function showPage(req: Request, res: Response, ctx: C, state: FormState, status: number) {
    if (!spec.page) throw new Error("A form post that can be refused needs its page");
    await spec.page(req, res, ctx, state, status);
  }
  return handle as PostHandler<C>;
}

/**
 * The JSON twin of a form post: an invalid body answers 400 (`invalidJson`, unless `invalid` says otherwise), a valid
 * one runs the use case and answers what it returns; a DomainError goes to the error handler unless `refused` answers.
 */
export function jsonPost<C = void, T = Record<string, unknown>>(spec: JsonPost<C, T>): PostHandler<C> {
  const handle = async (req: Request, res: Response, ctx: C): Promise<void> => {
    const result = checked(spec.check, spec.input ? spec.input(req, ctx) : formBody(req), ctx);
    const { answer } = result.ok
      ? await settle(spec, req, res, ctx, () => spec.run(req, res, result.data, ctx))
      : { answer: spec.invalid ? spec.invalid(result, ctx) : invalidJson(result) };
    res.status(answer.status ?? 200).json(answer.json);
  };
  return handle as PostHandler<C>;
}
