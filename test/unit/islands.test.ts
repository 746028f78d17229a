// The island registries are generated from the island folders by the build (esbuild.config.mjs); they are committed,
// so this fails when one is stale: an island's file added, renamed or removed without a build since.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { islandComponents, TEST_ISLANDS } from "../../widgets/islands.gen.ts";
import { islandLoaders } from "../../widgets/islandLoaders.gen.ts";
import { islandLoaders as testBuildLoaders } from "../../widgets/testIslandLoaders.gen.ts";

const root = path.resolve(import.meta.dirname, "../..");
const filesOf = (dir: string) =>
  fs
    .readdirSync(path.join(root, dir))
    .filter((f) => f.endsWith(".tsx"))
    .map((f) => f.slice(0, -".tsx".length))
    .sort();
const islands = filesOf("widgets/islands");
const testIslands = filesOf("widgets/testIslands");
const stale = "stale: run `npm run build` (or `node esbuild.config.mjs --islands-only`) and commit the widgets/*.gen.ts files";

describe("island registries generated from widgets/islands", () => {
  it("the server registry names every island and test island, each a component", () => {
    expect(Object.keys(islandComponents).sort(), stale).toEqual([...islands, ...testIslands].sort());
    expect([...TEST_ISLANDS], stale).toEqual(testIslands);
    for (const [name, component] of Object.entries(islandComponents)) expect(typeof component, `${name}'s default export`).toBe("function");
  });

  it("the browser loaders load each island's own file, a chunk each, and no test island", () => {
    expect(Object.keys(islandLoaders).sort(), stale).toEqual(islands);
    for (const [name, load] of Object.entries(islandLoaders)) expect(String(load), stale).toContain(`/islands/${name}.tsx`);
  });

  it("only the test build's loaders add the test islands", () => {
    expect(Object.keys(testBuildLoaders).sort(), stale).toEqual([...islands, ...testIslands].sort());
    for (const name of testIslands) expect(String(testBuildLoaders[name as keyof typeof testBuildLoaders]), stale).toContain(`/testIslands/${name}.tsx`);
  });
});
