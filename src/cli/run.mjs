// `npm run <command>` for the operators' commands: runs src/cli/<command>.ts compiled once with esbuild into build/cli/
// (git-ignored), so a command starts in a fraction of a second instead of compiling its whole import graph through
// tsx on every run. The build is remade when a file under src/ (or knexfile.ts, package-lock.json) is newer than it;
// where esbuild is not installed (a production image pruned of dev dependencies that was not given a build), the
// command runs through tsx as before. Plain JavaScript: it must start without any loader.
//
//   node src/cli/run.mjs <command> [args...]      node src/cli/run.mjs --build (npm run build:cli)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cliDir = path.join(root, "src/cli");
const outdir = path.join(root, "build/cli");
/** The commands: the files of src/cli that an npm script runs. */
export const COMMANDS = ["capacity", "clock", "discount", "erase", "events", "export", "migrate", "payments", "refund", "resend", "retention"].filter((name) =>
  fs.existsSync(path.join(cliDir, `${name}.ts`)),
);
const WATCHED = ["src", "views", "widgets/components"].map((d) => path.join(root, d));
const WATCHED_FILES = ["knexfile.ts", "package-lock.json", "src/cli/run.mjs"].map((f) => path.join(root, f));

function newestSource() {
  let newest = 0;
  const visit = (dir) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else newest = Math.max(newest, fs.statSync(full).mtimeMs);
    }
  };
  WATCHED.forEach(visit);
  for (const f of WATCHED_FILES) if (fs.existsSync(f)) newest = Math.max(newest, fs.statSync(f).mtimeMs);
  return newest;
}

function builtAt() {
  const stamp = path.join(outdir, "built.json");
  if (!fs.existsSync(stamp)) return 0;
  const built = JSON.parse(fs.readFileSync(stamp, "utf8"));
  return COMMANDS.every((c) => built.commands.includes(c)) ? built.at : 0;
}

/**
 * Keeps each module's own `import.meta.url` (paths to migrations/, public/ and data files next to the source): the
 * bundle lives in build/cli/, so the URL is written relative to it.
 */
const sourceUrls = {
  name: "source-import-meta-url",
  setup(build) {
    build.onLoad({ filter: /[/\\]src[/\\].*\.tsx?$/ }, (args) => {
      const text = fs.readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.url")) return undefined;
      const relative = path.relative(outdir, args.path).split(path.sep).join("/");
      return { contents: text.replaceAll("import.meta.url", `new URL(${JSON.stringify(relative)}, import.meta.url).href`), loader: args.path.endsWith("x") ? "tsx" : "ts" };
    });
  },
};

/** Builds every command into build/cli at once (a fresh folder swapped in, so a running command never sees half a build). */
export async function buildCommands() {
  const esbuild = await import("esbuild");
  const temp = `${outdir}.${process.pid}`;
  const startedAt = Date.now();
  await esbuild.build({
    entryPoints: COMMANDS.map((c) => path.join(cliDir, `${c}.ts`)),
    outdir: temp,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node24",
    packages: "external",
    jsx: "automatic",
    logLevel: "error",
    plugins: [sourceUrls],
  });
  fs.writeFileSync(path.join(temp, "built.json"), JSON.stringify({ at: startedAt, commands: COMMANDS }));
  // Another command may be swapping its own build in at the same moment: whichever lands, it is the same build.
  const old = `${outdir}.old.${process.pid}`;
  try {
    fs.renameSync(outdir, old);
  } catch {
    // there was none yet, or another process moved it
  }
  try {
    fs.renameSync(temp, outdir);
  } catch {
    fs.rmSync(temp, { recursive: true, force: true });
  }
  fs.rmSync(old, { recursive: true, force: true });
}

async function esbuildInstalled() {
  try {
    await import("esbuild");
    return true;
  } catch {
    return false;
  }
}

const [command, ...args] = process.argv.slice(2);
if (command === "--build") {
  await buildCommands();
} else if (command && COMMANDS.includes(command)) {
  const source = path.join(cliDir, `${command}.ts`);
  let compiled = builtAt() > newestSource();
  if (!compiled && (await esbuildInstalled())) {
    await buildCommands();
    compiled = true;
  }
  // The command sees itself as started directly: argv[1] its source (its isMain check), then its own arguments.
  process.argv = [process.argv[0], source, ...args];
  if (compiled) {
    await import(pathToFileURL(path.join(outdir, `${command}.mjs`)).href);
  } else {
    const { register } = await import("tsx/esm/api");
    register();
    await import(pathToFileURL(source).href);
  }
} else {
  console.error(`Usage: node src/cli/run.mjs <${COMMANDS.join("|")}> [arguments]`);
  process.exitCode = 1;
}
