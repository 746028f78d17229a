// An esbuild plugin shared by the two builds that bundle the server's modules for Node (src/cli/run.mjs: the operators'
// commands; esbuild.server.mjs: the server). Plain JavaScript: both build scripts run without any loader.
import fs from "node:fs";
import path from "node:path";

/**
 * Keeps each module's own `import.meta.url` (paths to migrations/, public/ and data files next to the source): the
 * bundle's URL is written relative to `folder`, the folder the bundle is written to, so the URL still names the source.
 */
export function sourceUrls(folder) {
  return {
    name: "source-import-meta-url",
    setup(build) {
      build.onLoad({ filter: /[/\\]src[/\\].*\.tsx?$/ }, (args) => {
        const text = fs.readFileSync(args.path, "utf8");
        if (!text.includes("import.meta.url")) return undefined;
        const relative = path.relative(folder, args.path).split(path.sep).join("/");
        return { contents: text.replaceAll("import.meta.url", `new URL(${JSON.stringify(relative)}, import.meta.url).href`), loader: args.path.endsWith("x") ? "tsx" : "ts" };
      });
    },
  };
}
