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

describe("house/browser-safe-imports", () => {
  const boundary = (file: string, code: string) => problems("house/browser-boundary", file, code);

  it("refuses a widget's import of a module outside src/shared/, naming the module", async () => {
    const found = await boundary("widgets/Probe.tsx", `import { HttpError } from "../src/http/errors.ts";\nexport const x = HttpError;\n`);
    expect(found).toEqual([expect.objectContaining({ rule: "house/browser-safe-imports" })]);
    expect(found[0]!.message).toContain("src/http/errors.ts is outside src/shared/");
  });

  it("refuses the same in views/ and in src/shared/, types included, and allows src/shared/", async () => {
    expect(await boundary("views/pages/Probe.tsx", `import { listEvents } from "../../src/events/repository.ts";\nexport const x = listEvents;\n`))
      .toEqual([expect.objectContaining({ rule: "house/browser-safe-imports" })]);
    expect(await boundary("src/shared/cart/rules.ts", `import { enqueueEmail } from "../../email/outbox.ts";\nexport const x = enqueueEmail;\n`))
      .toEqual([expect.objectContaining({ rule: "house/browser-safe-imports" })]);
    expect(await boundary("views/pages/Probe.tsx", `import type { Registration } from "../../src/registrations/core/registration.ts";\nexport type X = Registration;\n`))
      .toEqual([expect.objectContaining({ rule: "house/browser-safe-imports" })]);
    expect(await boundary("widgets/Probe.tsx", [
      `import type { CartLineView } from "../src/shared/cart/rules.ts";`,
      `import { formatPrice } from "../src/shared/money.ts";`,
      `import { CART_TEXT } from "../src/shared/cart/texts.ts";`,
      `export const x = (l: CartLineView) => formatPrice(l.priceCents) + CART_TEXT.emptyTitle;`,
    ].join("\n"))).toEqual([]);
  });

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

describe("house/one-direction", () => {
  const blocks = ["house/one-direction:views", "house/one-direction:widgets", "house/one-direction:components"];
  const lint = async (file: string, code: string) => {
    const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: only(...blocks) });
    const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
    return (result?.messages ?? []).map((m) => ({ rule: m.ruleId, message: m.message }));
  };

  it("refuses pages importing islands, islands importing pages, and components importing either, types included", async () => {
    const refused: [string, string][] = [
      ["views/pages/Probe.tsx", `import type { PaymentPanelProps } from "../../widgets/islands/PaymentPanel.tsx";\nexport type X = PaymentPanelProps;\n`],
      ["views/pages/shop/Probe.tsx", `import { islandComponents } from "../../../widgets/islands.gen.ts";\nexport const x = islandComponents;\n`],
      ["widgets/islands/Probe.tsx", `import { TeamNotes } from "../../views/pages/home/HomePage.tsx";\nexport const x = TeamNotes;\n`],
      ["components/Probe.tsx", `import { showToast } from "../widgets/toast.ts";\nexport const x = showToast;\n`],
      ["components/Probe.tsx", `import { Layout } from "../views/layout/Layout.tsx";\nexport const x = Layout;\n`],
    ];
    for (const [file, code] of refused) {
      const found = await lint(file, code);
      expect(found, file).toEqual([expect.objectContaining({ rule: "no-restricted-imports" })]);
      expect(found[0]!.message).toContain("Imports run one way");
    }
  });

  it("allows both sides to import components/ and their own folder", async () => {
    expect(await lint("views/pages/Probe.tsx", `import { Form } from "../../components/Form.tsx";\nimport { Toast } from "../components/Toast.tsx";\nexport const x = [Form, Toast];\n`)).toEqual([]);
    expect(await lint("widgets/islands/Probe.tsx", `import { Form } from "../../components/Form.tsx";\nimport { showToast } from "../toast.ts";\nexport const x = [Form, showToast];\n`)).toEqual([]);
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

describe("house/no-import-cycles", () => {
  it("refuses a cycle of value imports, not a type-only import", async () => {
    // import-x reads the imported files from disk, so the cycle lives in the scratch folder.
    write({
      "src/a.ts": `import { b } from "./b.ts";\nexport const a = () => b;\n`,
      "src/b.ts": `import { a } from "./a.ts";\nexport const b = () => a;\n`,
      "src/c.ts": `import type { a } from "./a.ts";\nexport type C = typeof a;\n`,
    });
    const eslint = new ESLint({ cwd: scratch, overrideConfigFile: true, overrideConfig: only("house/no-import-cycles") });
    const results = await eslint.lintFiles(["src/a.ts", "src/b.ts", "src/c.ts"]);
    const byFile = Object.fromEntries(results.map((r) => [path.basename(r.filePath), r.messages.map((m) => m.ruleId)]));
    expect(byFile).toEqual({ "a.ts": ["import-x/no-cycle"], "b.ts": ["import-x/no-cycle"], "c.ts": [] });
  });
});
