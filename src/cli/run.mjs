// `npm run <command>` for the operators' commands: runs src/cli/<command>.ts compiled once with esbuild (build/cli,
// a link to the newest build; git-ignored), so a command starts in a fraction of a second instead of compiling its
// whole import graph through tsx on every run. The build is remade when a file under src/ (or knexfile.ts,
// package-lock.json) is newer than it; where esbuild is not installed (a production image pruned of dev dependencies
// that was not given a build), the command runs through tsx as before. Plain JavaScript: it must start without any loader.
//
//   node src/cli/run.mjs <command> [args...]      node src/cli/run.mjs --build (npm run build:cli)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { sourceUrls } from "./sourceUrls.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cliDir = path.join(root, "src/cli");
const outdir = path.join(root, "build/cli");
/** The commands: the files of src/cli that an npm script runs. */
export const COMMANDS = ["capacity", "clock", "discount", "erase", "events", "export", "migrate", "payments", "refund", "resend", "retention"].filter((name) =>
  fs.existsSync(path.join(cliDir, `${name}.ts`)),
);
const WATCHED = ["src", "components", "views", "widgets"].map((d) => path.join(root, d));
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

/** A build older than this is removed by the next one: no command is still loading its modules by then. */
const OLD_BUILD_MS = 10 * 60_000;

/**
 * Builds every command into a folder of its own (build/cli.<time>.<pid>), then points the link build/cli at it in
 * one rename. A command that started from an earlier build keeps loading its chunks from that build's folder (Node
 * loads modules by their real path), so a build swapped in by another process (two tests at once on a fresh clone,
 * or a source edited during a run) never takes a chunk away from under it.
 */
export async function buildCommands() {
  const esbuild = await import("esbuild");
  const startedAt = Date.now();
  const name = `cli.${startedAt}.${process.pid}`;
  const folder = path.join(root, "build", name);
  await esbuild.build({
    entryPoints: COMMANDS.map((c) => path.join(cliDir, `${c}.ts`)),
    outdir: folder,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node24",
    packages: "external",
    jsx: "automatic",
    logLevel: "error",
    plugins: [sourceUrls(folder)],
  });
  fs.writeFileSync(path.join(folder, "built.json"), JSON.stringify({ at: startedAt, commands: COMMANDS }));
  const link = path.join(root, "build", `cli.link.${process.pid}`);
  fs.rmSync(link, { force: true });
  fs.symlinkSync(name, link);
  // An earlier layout kept build/cli as a folder, which a rename cannot replace with a link: moved aside first.
  if (fs.lstatSync(outdir, { throwIfNoEntry: false })?.isDirectory()) fs.renameSync(outdir, path.join(root, "build", `cli.0.${process.pid}`));
  fs.renameSync(link, outdir);
  for (const entry of fs.readdirSync(path.join(root, "build"))) {
    const at = /^cli\.(\d+)\.\d+$/.exec(entry)?.[1];
    if (at !== undefined && entry !== name && Number(at) < startedAt - OLD_BUILD_MS) fs.rmSync(path.join(root, "build", entry), { recursive: true, force: true });
  }
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
