/**
 * A browser as the cluster test needs one: it keeps its cookies and its CSRF token, and can be sent through the
 * proxy or straight to one instance (the same cookie on another instance is the point of the test).
 */
import { csrfFrom } from "../support/http.ts";
import { PUBLIC_URL } from "../bench/rushFamily.ts";

export interface Answer {
  status: number;
  text: string;
  json: Record<string, unknown>;
  headers: Headers;
}

function parse(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === "object" ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export class Visitor {
  private cookies = new Map<string, string>();
  private token = "";
  /** `origin`: the site's public origin, which its posts carry (a plain-HTTP trial has its own). */
  constructor(
    private base: string,
    private origin = PUBLIC_URL,
  ) {}

  private headers(extra: Record<string, string>): Record<string, string> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    // Straight to an instance, this machine is the one trusted proxy hop: it says https as nginx does.
    return { "x-forwarded-proto": "https", ...(cookie ? { cookie } : {}), ...extra };
  }

  private async send(url: string, init: RequestInit): Promise<Answer> {
    const res = await fetch(url, { ...init, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(";")[0]!;
      const eq = pair.indexOf("=");
      this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const text = await res.text();
    return { status: res.status, text, json: parse(text), headers: res.headers };
  }

  /** A GET; `base` sends it to one instance instead of the proxy. */
  get(path: string, base = this.base): Promise<Answer> {
    return this.send(`${base}${path}`, { headers: this.headers({ accept: "text/html,application/json" }) });
  }

  /** Opens a page and keeps its CSRF token for the posts that follow. */
  async open(path: string, base = this.base): Promise<Answer> {
    const page = await this.get(path, base);
    if (page.status !== 200) throw new Error(`GET ${path} answered ${page.status}`);
    this.token = csrfFrom(page.text);
    return page;
  }

  /** A JSON post as the widgets send it (token header, the site's Origin). */
  post(path: string, body: unknown, base = this.base): Promise<Answer> {
    return this.send(`${base}${path}`, {
      method: "POST",
      headers: this.headers({ accept: "application/json", "content-type": "application/json", "x-csrf-token": this.token, origin: this.origin }),
      body: JSON.stringify(body),
    });
  }
}
