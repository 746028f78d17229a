import request from "supertest";
import type { Express } from "express";

export function csrfFrom(html: string): string {
  const m = /<meta name="csrf-token" content="([^"]*)"/.exec(html);
  if (!m?.[1]) throw new Error("page has no CSRF token");
  return m[1];
}

/**
 * A visitor: a cookie-keeping agent with the CSRF token of its session.
 * `visitor.post(url)` / `.patch` / `.delete` send the token in the x-csrf-token header, as widgets do.
 */
export async function visitor(app: Express, firstPage = "/about") {
  const agent = request.agent(app);
  const res = await agent.get(firstPage);
  const token = csrfFrom(res.text);
  return {
    agent,
    token,
    get: (url: string) => agent.get(url),
    post: (url: string) => agent.post(url).set("x-csrf-token", token),
    patch: (url: string) => agent.patch(url).set("x-csrf-token", token),
    delete: (url: string) => agent.delete(url).set("x-csrf-token", token),
    /** A plain HTML form post (urlencoded, token in the _csrf field), as a browser without JavaScript sends it. */
    form: (url: string, fields: Record<string, string | string[]>) =>
      agent.post(url).type("form").send({ ...fields, _csrf: token }),
  };
}

/** The visible text of an HTML page, tags removed and whitespace folded (for "the page says X" assertions). */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, " ")
    .replace(/<style[\s\S]*?<\/style>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/\s+/g, " ")
    .trim();
}

/** Script tags a browser would execute (JSON props and JSON-LD are data, not scripts). */
export function executableScripts(html: string): string[] {
  return [...html.matchAll(/<script\b([^>]*)>/g)]
    .map((m) => m[1] ?? "")
    .filter((attrs) => !/type="application\/(json|ld\+json)"/.test(attrs));
}
