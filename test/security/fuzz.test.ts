import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { INVITE_TOKEN, routePath, UNSAFE_ROUTES, validBody, type Field, type Slots, type UnsafeRoute } from "./routes.ts";
import { secretTokenHash } from "../../src/http/secretLinks.ts";
import { cartState, LEAK, prototypeSnapshot, randomIp, rowCounts, shopperWithOneLine, type Visitor } from "./support.ts";
import { toText } from "../../src/shared/toText.ts";

/**
 * The probe's malformed requests, kept: every case sends a valid session and CSRF token to an unsafe route of
 * the table with at least one invalid field (so it must change nothing), dressed in hostile shapes: wrong types,
 * huge strings, control and invisible characters, prototype keys, deep nesting, duplicate keys, wrong content
 * types and charsets, broken JSON. FUZZ_RUNS sets the number of cases (npm test: 1,000; test:stress: 10,000);
 * FUZZ_SEED and FUZZ_PATH replay the case a failure names (fast-check prints both).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const REPLAY = process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED), path: process.env.FUZZ_PATH } : {};

let t: TestApp;
beforeAll(async () => {
  // One proxy hop is trusted here so each case can come from its own address: the per-address rate limits
  // (tested in rateLimits.test.ts) would otherwise answer 429 before the handlers see the input.
  t = await createTestApp({ TRUST_PROXY_HOPS: "1" });
  // The invite a family's row is posted to (the route with an unknown token would answer 404 before reading a field).
  const now = new Date();
  await t.db("team_invites").insert({ event_id: 2, token_hash: secretTokenHash(INVITE_TOKEN), form_session_id: "fuzz-invite-form", coach_json: "{}", rows_json: "[]", created_at: now, updated_at: now });
});
afterAll(async () => {
  await t?.close();
});

// ---------- invalid values, by the kind of field (each is invalid for that kind whatever else is sent) ----------

const CONTROL = ["\u0000", "\r\n", "\n", "\r", "\u0007", "\u001b[31m", "\u0085", "\u007f"];
const BIDI = ["\u202e", "\u202d", "\u2066", "\u2069", "\u200f", "\u2028"];
const INVISIBLE = ["\u200b", "\u200b\u200c\u200d", "\ufeff\u200b", "\u2060\u2060", "\u3164", "\u00ad\u00ad", " \u200b "];
const ASCII = fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 20 }).filter((s) => s.trim().length > 0);

/** A string with one dirty character inside visible text (refused in single-line fields). */
const dirty = (chars: string[]) => fc.tuple(ASCII, fc.constantFrom(...chars), ASCII).map(([a, c, b]) => `${a}${c}${b}`);
const invisibleOnly = fc.constantFrom(...INVISIBLE);
/** Longer than any field allows (the longest is 5,000 characters, counted as code points), mostly under the 100 kB body limit. */
const huge = fc.integer({ min: 5_001, max: 12_000 }).chain((n) => fc.constantFrom("a", "é", "😀", "<script>").map((c) => c.repeat(Math.ceil(n / [...c].length))));
const deep = fc.integer({ min: 10, max: 3_000 }).map((n) => JSON.parse("[".repeat(n) + "]".repeat(n)) as unknown);
const protoObject = fc.constantFrom<unknown>({ ["__proto__"]: { polluted: "yes" } }, { constructor: { prototype: { polluted: "yes" } } }, { toString: "x" });
/** Not a string at all (refused where a string is required; form encoding turns some into strings, so JSON only). */
const nonString = fc.oneof(fc.boolean(), fc.constant(null), fc.constant([5]), fc.constant([]), fc.constant({}), fc.array(ASCII, { minLength: 2, maxLength: 3 }), deep, protoObject);
/** Refused by every text kind, in JSON or a form. */
const dirtyText = fc.oneof(dirty(BIDI), invisibleOnly, huge, dirty(["\u0000", "\u0007", "\u001b", "\u007f", "\u0085"]));

function badValue(field: Field, encoding: "json" | "form"): fc.Arbitrary<unknown> {
  const arb = badValueOfKind(field, encoding);
  // An optional field may be left out: null or blank is valid there.
  return field.nullable ? arb.filter((v) => v !== null && v !== "") : arb;
}

function badValueOfKind(field: Field, encoding: "json" | "form"): fc.Arbitrary<unknown> {
  const json = encoding === "json";
  const typeJunk = json ? [nonString] : [fc.constant(["a", "b"]), fc.constant({ nested: { deeper: "x" } })];
  switch (field.type.kind) {
    case "line":
      return fc.oneof(dirtyText, dirty(CONTROL), ...typeJunk);
    case "text":
      return fc.oneof(dirtyText, ...typeJunk);
    case "email":
      return fc.oneof(dirtyText, dirty(CONTROL), ASCII.filter((s) => !s.includes("@")), fc.constant("sam@example.com\r\nBcc: x@evil.example"), ...typeJunk);
    case "id":
      // Any other string or number is only an unknown product (404); these are refused outright.
      return fc.oneof(dirtyText, dirty(CONTROL), fc.constant(""), ...(json ? [fc.boolean(), fc.constant(null), fc.constant([5]), protoObject, deep] : typeJunk));
    case "quantity": {
      const strings = fc.constantFrom("", " 7 ", "0x10", "1e2", "1.5", "-1", "+3", "١", "7\u0000", "Infinity", "NaN", "100", "99999999999999999999");
      const numbers = fc.oneof(fc.constantFrom(1e308, -1e308, 2.5, 100, -1, 5e-324, Number.MAX_SAFE_INTEGER + 2), ...(field.type.min === 1 ? [fc.constant(-0), fc.constant(0)] : []));
      return json ? fc.oneof(strings, numbers, fc.boolean(), fc.constant(null), fc.constant([5]), fc.constant({}), protoObject) : fc.oneof(strings, ...typeJunk);
    }
    case "choice":
      return fc.oneof(dirtyText, ASCII.map((s) => `x-${s}`), ...typeJunk);
    case "paymentIntent":
      return fc.oneof(dirtyText, ASCII.map((s) => `ch_${s}`), fc.constant("pi_\u0000"), fc.constant("pi_a b"), ...typeJunk);
  }
}

// ---------- how a case is sent ----------

type Dressing = "plain" | "protoKeys" | "duplicateKeys" | "deepExtra" | "bigNumbers";
type Transport =
  | { kind: "json"; dressing: Dressing }
  | { kind: "form" }
  | { kind: "formAsJson" } // a form body to a JSON route, or JSON to a form route
  | { kind: "rawBody"; contentType: string; body: string; encoding?: string };

interface Case {
  route: UnsafeRoute;
  field: string;
  value: unknown;
  transport: Transport;
}

const fuzzed = UNSAFE_ROUTES.filter((r) => r.fields && Object.keys(r.fields).length > 0);

const transportArb = (route: UnsafeRoute): fc.Arbitrary<Transport> =>
  fc.oneof(
    { weight: 6, arbitrary: route.body === "json" ? fc.constantFrom<Dressing>("plain", "protoKeys", "duplicateKeys", "deepExtra", "bigNumbers").map((dressing) => ({ kind: "json" as const, dressing })) : fc.constant({ kind: "form" as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: "formAsJson" as const }) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom<Transport>(
          { kind: "rawBody", contentType: "application/json; charset=bogus", body: "{}" },
          { kind: "rawBody", contentType: "application/json; charset=utf-16", body: "{}" },
          { kind: "rawBody", contentType: "application/x-www-form-urlencoded; charset=utf-16", body: "a=1" },
          { kind: "rawBody", contentType: "application/x-www-form-urlencoded; charset=koi8-r", body: "a=1" },
          { kind: "rawBody", contentType: "application/json", body: "{}", encoding: "x-foo" },
          { kind: "rawBody", contentType: "application/json", body: "{}", encoding: "gzip" },
          { kind: "rawBody", contentType: "text/plain", body: "{\"a\":1}" },
          { kind: "rawBody", contentType: "application/xml", body: "<a>1</a>" },
          { kind: "rawBody", contentType: "multipart/form-data; boundary=x", body: "--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--x--" },
          { kind: "rawBody", contentType: "application/json", body: "[1,2,3]" },
          { kind: "rawBody", contentType: "application/json", body: "\"just a string\"" },
          { kind: "rawBody", contentType: "application/json", body: "null" },
          { kind: "rawBody", contentType: "application/json", body: "1e308" },
          { kind: "rawBody", contentType: "application/x-www-form-urlencoded", body: Array.from({ length: 600 }, (_, i) => `p${i}=1`).join("&") },
          { kind: "rawBody", contentType: "application/x-www-form-urlencoded", body: "__proto__[polluted]=yes&constructor[prototype][polluted]=yes&a[__proto__][polluted]=yes" },
          { kind: "rawBody", contentType: "application/x-www-form-urlencoded", body: `${"a".repeat(1)}${"[a]".repeat(40)}=1` },
          { kind: "rawBody", contentType: "application/json", body: "x".repeat(120_000) },
        ),
        // Broken JSON: a cut-off or mangled object.
        fc.string({ maxLength: 40 }).map((s) => ({ kind: "rawBody" as const, contentType: "application/json", body: `{"a": ${JSON.stringify(s)}`.slice(0, 5 + s.length) })),
      ),
    },
  );

const caseArb: fc.Arbitrary<Case> = fc.constantFrom(...fuzzed).chain((route) => {
  const names = Object.keys(route.fields!);
  return fc.tuple(fc.constantFrom(...names), transportArb(route)).chain(([field, transport]) => {
    const encoding = transport.kind === "json" ? "json" : "form";
    return badValue(route.fields![field]!, encoding).map((value) => ({ route, field, value, transport }));
  });
});

/** Form encoding as the site's parser reads it (qs brackets for nested values). */
function formEncode(value: unknown, prefix = "", out: string[] = []): string[] {
  if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) formEncode(v, prefix ? `${prefix}[${k}]` : k, out);
  } else if (value !== undefined) {
    out.push(`${encodeURIComponent(prefix)}=${encodeURIComponent(value === null ? "" : toText(value))}`);
  }
  return out;
}

/** JSON text with extras no JSON.stringify would write: prototype keys, the bad field repeated after a valid one, deep arrays, huge numbers. */
function jsonText(body: Record<string, unknown>, c: Case, valid: Record<string, unknown>): string {
  const text = JSON.stringify(body);
  const inner = text.slice(1, -1);
  const sep = inner ? "," : "";
  switch ((c.transport as { dressing: Dressing }).dressing) {
    case "protoKeys":
      return `{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}${sep}${inner}}`;
    case "duplicateKeys": {
      // The valid value first, the bad one last: JSON.parse keeps the last.
      const top = c.field.split(".")[0]!;
      return `{${JSON.stringify(top)}:${JSON.stringify(valid[top] ?? "ok")}${sep}${inner}}`;
    }
    case "deepExtra":
      return `{"extra":${"[".repeat(5000)}${"]".repeat(5000)}${sep}${inner}}`;
    case "bigNumbers":
      return `{"n1":1e308,"n2":-0,"n3":123456789012345678901234567890${sep}${inner}}`;
    default:
      return text;
  }
}

async function send(v: Visitor, c: Case, slots: Slots) {
  const path = routePath(c.route, slots.line);
  const method = c.route.method.toLowerCase() as "post" | "patch" | "delete";
  const req = v.agent[method](path).set("x-csrf-token", v.token).set("x-forwarded-for", randomIp()).set("accept", c.route.body === "json" ? "application/json" : "text/html");
  const body = validBody(c.route, slots, { path: c.field, value: c.value });
  const valid = validBody(c.route, slots);
  switch (c.transport.kind) {
    case "json":
      return req.set("content-type", "application/json").send(jsonText(body, c, valid));
    case "form":
      return req.set("content-type", "application/x-www-form-urlencoded").send([...formEncode(body), `_csrf=${encodeURIComponent(v.token)}`].join("&"));
    case "formAsJson":
      return c.route.body === "json"
        ? req.set("content-type", "application/x-www-form-urlencoded").send(formEncode(body).join("&"))
        : req.set("content-type", "application/json").send(JSON.stringify(body));
    case "rawBody": {
      const r = req.set("content-type", c.transport.contentType);
      if (c.transport.encoding) r.set("content-encoding", c.transport.encoding);
      return r.send(c.transport.body);
    }
  }
}

describe("fuzzing every JSON and form endpoint with a valid session and token", () => {
  it(`answers ${RUNS} invalid requests with a 3xx or 4xx, no stack trace or path, no row, no cart change, no polluted prototype`, { timeout: Math.max(180_000, RUNS * 150) }, async () => {
    const { v, slots } = await shopperWithOneLine(t.app);
    const rowsBefore = await rowCounts(t.db);
    const cartBefore = await cartState(v);
    const protoBefore = prototypeSnapshot();
    const statuses = new Map<number, number>();
    const started = Date.now();

    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const res = await send(v, c, slots);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const what = `${c.route.method} ${c.route.path} ${c.field}=${JSON.stringify(c.value)?.slice(0, 80)} via ${JSON.stringify(c.transport).slice(0, 120)}`;
        expect(res.status, `${what} -> ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(300);
        expect(res.status, what).toBeLessThan(500);
        expect(LEAK.exec(res.text)?.[0], `${what}: leaks ${LEAK.exec(res.text)?.input.slice(Math.max(0, LEAK.exec(res.text)!.index - 80), LEAK.exec(res.text)!.index + 80)}`).toBeUndefined();
        expect(prototypeSnapshot(), what).toBe(protoBefore);
        expect(({} as Record<string, unknown>).polluted, what).toBeUndefined();
      }),
      { numRuns: RUNS, endOnFailure: true, ...REPLAY },
    );

    expect(await rowCounts(t.db)).toEqual(rowsBefore);
    expect(await cartState(v)).toBe(cartBefore);
    // The site still serves.
    await request(t.app).get("/healthz").expect(200);
    await v.get("/shop").expect(200);
    const summary = [...statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}:${n}`).join(" ");
    console.info(`fuzz (${t.backend}): ${RUNS} cases in ${((Date.now() - started) / 1000).toFixed(1)} s over ${fuzzed.length} routes; statuses ${summary}`);
  });
});
