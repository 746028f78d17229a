// The README and docs/ are what a newcomer and an operator follow: every relative link must lead to a file (and to a
// heading when it names one), every `npm run X` must be a script, and the README must stay two screens long.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { headingAnchors, linksOf, npmScriptsNamed } from "../support/markdown.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const pages = ["README.md", ...fs.readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const scripts = Object.keys((JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts);
const read = (page: string) => fs.readFileSync(path.join(root, page), "utf8");

describe("README and docs/", () => {
  it("has the pages the README sends people to", () => {
    for (const page of ["running", "deploying", "operators", "data-model", "payments", "architecture", "security", "performance"]) {
      expect(pages).toContain(`docs/${page}.md`);
    }
  });

  it("keeps the README to about two screens, with its two commands", () => {
    const readme = read("README.md");
    expect(readme.split("\n").length).toBeLessThanOrEqual(150);
    expect(readme).toContain("npm ci && npm start");
    expect(readme).toContain("npm test");
    expect(readme).toContain("apt-get install chromium");
  });

  it.each(pages)("%s: every relative link resolves, anchors included", (page) => {
    const broken: string[] = [];
    for (const link of linksOf(read(page))) {
      if (/^[a-z]+:/i.test(link)) continue;
      const [target = "", anchor] = link.split("#");
      const file = target ? path.resolve(path.dirname(path.join(root, page)), target) : path.join(root, page);
      if (!fs.existsSync(file)) {
        broken.push(`${link}: no such file`);
        continue;
      }
      if (anchor && file.endsWith(".md") && !headingAnchors(fs.readFileSync(file, "utf8")).has(anchor)) broken.push(`${link}: no such heading`);
    }
    expect(broken).toEqual([]);
  });

  it.each(pages)("%s: every `npm run X` it names is a script of package.json", (page) => {
    const unknown = npmScriptsNamed(read(page)).filter((name) => !scripts.includes(name));
    expect(unknown).toEqual([]);
  });
});
