// Route modules stay small enough to read at once: a route file (routes.ts(x), or any file in a routes/ folder of
// src/) of more than 200 lines is split by responsibility (page rendering beside the handlers, a middleware apart).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MAX_LINES = 200;

function routeModules(dir: string, inRoutes = false): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeModules(full, inRoutes || entry.name === "routes");
    return /\.tsx?$/.test(entry.name) && (inRoutes || /^routes\.tsx?$/.test(entry.name)) ? [full] : [];
  });
}

describe("route modules", () => {
  const files = routeModules(path.join(root, "src"));

  it("are found (the walk itself works)", () => {
    const names = files.map((f) => path.relative(root, f).split(path.sep).join("/"));
    expect(names).toContain("src/collegeCoachRequests/routes.tsx");
    expect(names).toContain("src/registrations/booking/routes/individual.routes.tsx");
  });

  it(`have at most ${MAX_LINES} lines each`, () => {
    const long = files
      .map((f) => ({ file: path.relative(root, f), lines: fs.readFileSync(f, "utf8").trimEnd().split("\n").length }))
      .filter((m) => m.lines > MAX_LINES);
    expect(long, "split these by responsibility").toEqual([]);
  });

  it("share no path with another file of src/ but for the folder routes/ (a route module and its use case read as two files)", () => {
    const all = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? all(path.join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [path.join(dir, entry.name)] : []));
    const key = (f: string) => path.relative(root, f).split(path.sep).filter((part) => part !== "routes").join("/").replace(/\.tsx?$/, "");
    const byKey = new Map<string, string[]>();
    for (const f of all(path.join(root, "src"))) byKey.set(key(f), [...(byKey.get(key(f)) ?? []), path.relative(root, f)]);
    expect([...byKey.values()].filter((files) => files.length > 1)).toEqual([]);
  });
});
