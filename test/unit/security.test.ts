import { describe, expect, it } from "vitest";
import type { Request } from "express";
import * as z from "zod/mini";
import { multiLine, singleLine, TEXT_MESSAGES, wholeNumber } from "../../src/shared/text.ts";
import { isSameOriginPath } from "../../src/http/redirects.ts";
import { siteOrigin } from "../../src/http/origin.ts";
import { parseStripeForm } from "../../src/payments/offline/fakeStripeServer.ts";
import { errorForLog } from "../../src/http/errors.ts";

const firstMessage = (r: { success: boolean; error?: { issues: { message: string }[] } }) => (r.success ? undefined : r.error!.issues[0]!.message);

describe("single-line and multi-line text", () => {
  it("refuses control characters, bidi controls and invisible-only text in a single line", () => {
    const line = singleLine("Name is required").check(z.minLength(1, "Name is required"));
    for (const [input, message] of [
      ["Sam\u0000", TEXT_MESSAGES.control],
      ["Sam\r\nBcc: x", TEXT_MESSAGES.control],
      ["Sam\tRivera", TEXT_MESSAGES.control],
      ["Sam\u0085", TEXT_MESSAGES.control],
      ["abc\u202edcba", TEXT_MESSAGES.format],
      ["abc\u2066x\u2069", TEXT_MESSAGES.format],
      ["\u200b\u200c\u200d", TEXT_MESSAGES.invisible],
      ["\ufeff", "Name is required"], // trimmed away like a space
      ["\u2060\u00ad", TEXT_MESSAGES.invisible],
      ["\u3164", TEXT_MESSAGES.invisible],
      [42, "Name is required"],
    ] as const) {
      expect(firstMessage(line.safeParse(input)), JSON.stringify(input)).toBe(message);
    }
  });

  it("normalises to NFC and trims; keeps real names in any script", () => {
    expect(singleLine().parse("  Jose\u0301  ")).toBe("José");
    for (const name of ["Zoë O'Brien", "محمد علي", "שרה כהן", "李小龙", "Nguyễn Văn An", "👍 Team"]) expect(singleLine().parse(name)).toBe(name.normalize("NFC"));
    expect(singleLine().parse("")).toBe("");
  });

  it("keeps line breaks (as \\n) and tabs in multi-line text, refuses the rest", () => {
    expect(multiLine().parse("One\r\nTwo\rThree\n\tFour")).toBe("One\nTwo\nThree\n\tFour");
    expect(firstMessage(multiLine().safeParse("One\u0000Two"))).toBe(TEXT_MESSAGES.control);
    expect(firstMessage(multiLine().safeParse("One\u202eTwo"))).toBe(TEXT_MESSAGES.format);
    expect(firstMessage(multiLine().safeParse("\n\u200b\n"))).toBe(TEXT_MESSAGES.invisible);
  });

  it("reads quantities from integers and digit strings only", () => {
    const q = wholeNumber({ type: "not a number", whole: "not whole" });
    expect(q.parse(7)).toBe(7);
    expect(q.parse("07")).toBe(7);
    for (const bad of [[5], true, "0x10", " 7 ", "", "1e1", "-1", "+1", null, {}, "٣"]) expect(q.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    expect(firstMessage(q.safeParse(2.5))).toBe("not whole");
  });
});

describe("redirect targets", () => {
  it("accepts paths on this site only", () => {
    for (const ok of ["/", "/cart", "/shop/tee?Size=M", "/%2F%2Fx"]) expect(isSameOriginPath(ok), ok).toBe(true);
    for (const bad of ["//evil.example/x", "/\\evil.example", "https://evil.example", "evil", "", "/\u0000x", "/a\nb", "/a\\b"]) expect(isSameOriginPath(bad), bad).toBe(false);
  });
});

describe("the site's origin for links", () => {
  const req = (protocol: string, host: string | undefined) => ({ protocol, get: (h: string) => (h === "host" ? host : undefined) }) as unknown as Request;
  it("prefers PUBLIC_URL, else takes only an http(s) protocol and a well-formed host", () => {
    expect(siteOrigin(req("javascript", "evil.example"), "https://shop.example")).toBe("https://shop.example");
    expect(siteOrigin(req("javascript", "evil.example"), undefined)).toBe("http://evil.example");
    expect(siteOrigin(req("https", "Shop.Example:8443"), undefined)).toBe("https://shop.example:8443");
    expect(siteOrigin(req("http", "[::1]:3000"), undefined)).toBe("http://[::1]:3000");
    for (const host of ['evil.example/"><script>', "a b", "evil.example@x", "", undefined]) expect(siteOrigin(req("http", host), undefined)).toBe("http://localhost");
  });
});

describe("the offline Stripe form parser", () => {
  it("builds nested objects without prototypes", () => {
    const parsed = parseStripeForm("amount=500&metadata[kind]=order&payment_method_types[0]=card&a=1&a[b]=2");
    expect(Object.getPrototypeOf(parsed)).toBeNull();
    expect(Object.getPrototypeOf(parsed.metadata)).toBeNull();
    expect({ ...(parsed.metadata as object) }).toEqual({ kind: "order" });
    expect({ ...(parsed.payment_method_types as object) }).toEqual({ 0: "card" });
  });

  it("refuses __proto__, constructor and prototype anywhere in a key, before writing anything", () => {
    for (const body of ["__proto__[toString]=x", "a[__proto__][x]=1", "constructor[prototype][x]=1", "x[prototype]=1", "ok=1&__proto__=2"]) {
      expect(() => parseStripeForm(body), body).toThrow(/Invalid parameter name/);
    }
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(typeof Object.prototype.toString).toBe("function");
  });
});

describe("errors in the log", () => {
  it("keeps no body and no parser message, and cuts quoted snippets out of other messages", () => {
    const parserError = Object.assign(new SyntaxError('Unexpected token in JSON: "card":"4242424242424242"'), { type: "entity.parse.failed", body: '{"card":"4242424242424242"}', status: 400 });
    expect(JSON.stringify(errorForLog(parserError))).not.toContain("4242");
    const other = new Error('insert failed for "sam@example.com"');
    const logged = errorForLog(other);
    expect(JSON.stringify(logged)).not.toContain("sam@example.com");
    expect(logged.stack).toBeDefined();
  });
});
