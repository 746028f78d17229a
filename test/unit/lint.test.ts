// The house lint rules catch what they promise, with a message that names the rule (README: "Lint rules").
// Each probe runs only the config block under test, on code given as text or written to a scratch folder.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ESLint, type Linter } from "eslint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
let config: Linter.Config[];
let scratch: string;

beforeAll(async () => {
  ({ default: config } = (await import(pathToFileURL(path.join(root, "eslint.config.js")).href)) as { default: Linter.Config[] });
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lint-probe-"));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** The project's config limited to the unnamed base blocks and the named house blocks. */
function only(...names: string[]): Linter.Config[] {
  return config.filter((c) => !c.name || names.includes(c.name));
}

async function problems(block: string, file: string, code: string): Promise<{ rule: string | null; message: string }[]> {
  const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: only(block) });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).map((m) => ({ rule: m.ruleId, message: m.message }));
}

function write(files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(scratch, name)), { recursive: true });
    fs.writeFileSync(path.join(scratch, name), text);
  }
}

// Which folder may import which (and no import circles) is dependency-cruiser's: test/unit/layering.test.ts.
describe("house/browser-packages", () => {
  it("refuses server packages and Node built-ins in widgets", async () => {
    const found = await problems("house/browser-packages", "widgets/Probe.tsx", `import fs from "node:fs";\nimport knex from "knex";\nexport const x = [fs, knex];\n`);
    expect(found.map((p) => p.rule)).toEqual(["@typescript-eslint/no-restricted-imports", "@typescript-eslint/no-restricted-imports"]);
  });
});

describe("house/no-env-in-views", () => {
  it("refuses process.env in views/ and widgets/", async () => {
    for (const file of ["views/pages/Probe.tsx", "widgets/Probe.tsx"]) {
      const found = await problems("house/no-env-in-views", file, `export const url = process.env.PUBLIC_URL;\n`);
      expect(found).toEqual([expect.objectContaining({ rule: "no-restricted-properties" })]);
      expect(found[0]!.message).toContain("never read process.env");
    }
  });
});

describe("house/refusals-by-reason", () => {
  it("refuses a decision by an error's message text, and allows one by reason or kind", async () => {
    const byMessage = [
      `if (err.message === REGISTRATION_ERRORS.closed) return 1;`,
      `const t = (err as Error).message !== TEXT.missing ? 1 : 2;`,
      `if (err.message.startsWith("Please fill in")) return 1;`,
      `if (/sold out/i.test(err.message)) return 1;`,
    ];
    for (const line of byMessage) {
      const found = await problems("house/refusals-by-reason", "src/registrations/booking/routes/probe.tsx", `declare const err: any, REGISTRATION_ERRORS: any, TEXT: any;\nexport function f() {\n  ${line}\n  return 0;\n}\n`);
      expect(found, line).toEqual([expect.objectContaining({ rule: "house/refusals-by-reason" })]);
      expect(found[0]!.message).toContain("err.reason");
    }
    const byReason = `declare const err: { reason?: string; kind: string; message: string };\nexport const f = () => (err.reason === "sold_out" || err.kind === "conflict" ? err.message : "");\n`;
    expect(await problems("house/refusals-by-reason", "src/registrations/booking/routes/probe.tsx", byReason)).toEqual([]);
  });
});

describe("house/domain-errors-in-use-cases and house/session-keys-in-one-place", () => {
  it("refuses HttpError outside src/http/ and routes", async () => {
    const code = `import { HttpError } from "../http/errors.ts";\nexport const e = () => new HttpError(409, "Only 1 left in stock");\n`;
    const found = await problems("house/domain-errors-in-use-cases", "src/cart/cart.ts", code);
    expect(found).toEqual([expect.objectContaining({ rule: "no-restricted-imports" })]);
    expect(found[0]!.message).toContain("Use cases throw a DomainError");
    expect(await problems("house/domain-errors-in-use-cases", "src/cart/routes.tsx", code)).toEqual([]);
  });

  it("refuses a session key declared outside src/http/sessionData.ts", async () => {
    const code = `declare module "express-session" {\n  interface SessionData { mine?: string }\n}\nexport {};\n`;
    const found = await problems("house/session-keys-in-one-place", "src/registrations/session.ts", code);
    expect(found).toEqual([expect.objectContaining({ rule: "no-restricted-syntax" })]);
    expect(await problems("house/session-keys-in-one-place", "src/http/sessionData.ts", code)).toEqual([]);
  });
});

describe("house/no-floating-promises", () => {
  it("refuses a promise in src/ that nobody awaits", async () => {
    // A one-file program of its own, so the type-aware rule does not have to load the whole project.
    write({ "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", module: "NodeNext", lib: ["ES2023"], types: [] }, include: ["src"] }) });
    const code = `export async function save(): Promise<void> {}\nexport function handler(): void {\n  save();\n}\n`;
    const lint = async (text: string) => {
      write({ "src/probe.ts": text });
      const eslint = new ESLint({
        cwd: scratch,
        overrideConfigFile: true,
        overrideConfig: [...only("house/no-floating-promises"), { files: ["src/**/*.ts"], languageOptions: { parserOptions: { tsconfigRootDir: scratch } } }],
      });
      const [result] = await eslint.lintFiles(["src/probe.ts"]);
      return result!.messages.map((m) => m.ruleId);
    };
    expect(await lint(code)).toEqual(["@typescript-eslint/no-floating-promises"]);
    expect(await lint(code.replace("  save();", "  void save().catch(() => undefined);"))).toEqual([]);
  });
});
