// The site is American: what a visitor reads (pages, widgets, the shared texts, e-mails) is in US spelling. The walk
// takes the prose out of the source (quoted strings and JSX text with a space in them, comments left out) and looks
// for British forms. A word the spec fixes word for word would be listed in SPEC_WORDS (none today).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const BRITISH =
  /\b(authoris\w*|organis\w*|\w*colour\w*|\w*favour\w*|honour\w*|behaviour\w*|neighbour\w*|odour\w*|labour\w*|grey|wilful|centres?|theatres?|licence|defence|travell\w*|cancell(?:ed|ing)|catalogues?|fulfil|fulfilment|programmes?|apologis\w*|recognis\w*|realis\w*|customis\w*|personalis\w*|minimis\w*|prioritis\w*|summaris\w*|judgement|enrolment|aluminium|whilst|amongst)\b/gi;
const SPEC_WORDS: string[] = [];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.tsx?$/.test(entry.name) && !/\.gen\.ts$/.test(entry.name) ? [full] : [];
  });
}

/** Every file a visitor's words come from: views/, widgets/, components/, src/shared/ and every e-mail module of src/. */
function visitorFacing(): string[] {
  const email = sources(path.join(root, "src")).filter((f) => /email/i.test(path.basename(f)) && !f.includes(`${path.sep}shared${path.sep}`));
  return [...["views", "widgets", "components", "src/shared"].flatMap((d) => sources(path.join(root, d))), ...email];
}

/** The prose in a source file: its strings and JSX text that hold a space, without comments. */
export function proseOf(source: string): string[] {
  const code = source
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .map((line) => line.replace(/\s\/\/\s.*$/, ""))
    .join("\n");
  const pieces = [...code.matchAll(/"([^"\n]*)"|`([^`]*)`|>([^<>{}]+)</g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
  return pieces.filter((p) => /\S\s+\S/.test(p));
}

describe("US spelling in what visitors read", () => {
  const files = visitorFacing();

  it("walks the files and finds their prose", () => {
    const names = files.map((f) => path.relative(root, f).split(path.sep).join("/"));
    expect(names).toContain("src/shared/registrations/deposits.ts");
    expect(names).toContain("views/pages/apparel/CustomApparelPage.tsx");
    expect(names).toContain("src/registrations/balances/email.ts");
    expect(proseOf('const a = "I authorise the charge"; // a colour\n<p>Team colour</p>').join("|")).toBe("I authorise the charge|Team colour");
  });

  it("has no British spelling", () => {
    const found = files.flatMap((f) =>
      proseOf(fs.readFileSync(f, "utf8")).flatMap((p) =>
        [...p.matchAll(BRITISH)].map((m) => m[0]).filter((w) => !SPEC_WORDS.includes(w)).map((w) => `${path.relative(root, f)}: ${w}`),
      ),
    );
    expect(found).toEqual([]);
  });
});
