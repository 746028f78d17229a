// React chooses its build from NODE_ENV when first imported. Importing the app as server.ts does, in a child
// process (this one already loaded React), shows which build a server started with that NODE_ENV renders with.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { NODE_CHILD_FLAGS, spawnTracked } from "../support/children.ts";
import { scaledMs } from "../support/timeouts.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function buildLoadedWith(nodeEnv: string): Promise<string> {
  const script = `await import(${JSON.stringify(path.join(root, "src/app.ts"))});
const { reactBuild } = await import(${JSON.stringify(path.join(root, "src/reactBuild.ts"))});
const { renderToString } = await import("react-dom/server");
const { createElement } = await import("react");
const { createRequire } = await import("node:module");
const { basename } = await import("node:path");
// Node lexes both files of react/index.js for its export names, but runs (loads) only the one chosen.
const ran = Object.entries(createRequire(${JSON.stringify(path.join(root, "package.json"))}).cache)
  .filter(([file, m]) => m.loaded && ["react.production.js", "react.development.js"].includes(basename(file)))
  .map(([file]) => basename(file));
console.log(reactBuild(), ran.join(","), renderToString(createElement("p", null, "rendered")));`;
  return new Promise((resolve, reject) => {
    const child = spawnTracked(process.execPath, [...NODE_CHILD_FLAGS, "--input-type=module", "-e", script], {
      cwd: root,
      env: { ...process.env, NODE_ENV: nodeEnv, LOG_LEVEL: "silent" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}: ${out}`))));
  });
}

describe("React's build", () => {
  it("is the production build when NODE_ENV=production, and the development build otherwise", { timeout: scaledMs(120_000) }, async () => {
    const [production, development] = await Promise.all([buildLoadedWith("production"), buildLoadedWith("development")]);
    expect(production).toBe("production react.production.js <p>rendered</p>");
    expect(development).toBe("development react.development.js <p>rendered</p>");
  });
});
