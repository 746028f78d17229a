/**
 * Every process a test starts is stopped when the test is done with it, when it fails or times out, and when the test
 * process itself ends: children are tracked here and killed on this process's exit, and each node child also watches
 * its parent (orphanGuard.ts) for the deaths that give no exit event (a signal, SIGKILL).
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The node flags that tie a child's life to this process (Node 24 loads the guard's TypeScript without a loader). */
const ORPHAN_GUARD_FLAGS = ["--import", path.join(root, "test/support/orphanGuard.ts")];
/** The node flags that run a TypeScript file of the project and tie its life to this process. */
export const NODE_CHILD_FLAGS = ["--import", "tsx", ...ORPHAN_GUARD_FLAGS];

const running = new Set<ChildProcess>();

function killAll(signal: NodeJS.Signals): void {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
}

let hooked = false;
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once("exit", () => killAll("SIGKILL"));
}

/** Spawns a process that is stopped with this one at the latest. */
export function spawnTracked(command: string, args: string[], options: SpawnOptions): ChildProcess {
  hookExit();
  const child = spawn(command, args, options);
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
}

/** Runs a TypeScript file of the project in a node child (tsx), stopped with this process at the latest. */
export function spawnNodeScript(script: string, args: string[], options: SpawnOptions, nodeArgs: string[] = []): ChildProcess {
  return spawnTracked(process.execPath, [...nodeArgs, ...NODE_CHILD_FLAGS, script, ...args], options);
}

/**
 * Runs plain JavaScript (a build of esbuild.server.mjs, src/cli/run.mjs) in a node child with no loader, as
 * production runs it, stopped with this process at the latest.
 */
export function spawnNodeBuilt(file: string, args: string[], options: SpawnOptions, nodeArgs: string[] = []): ChildProcess {
  return spawnTracked(process.execPath, [...nodeArgs, "--enable-source-maps", ...ORPHAN_GUARD_FLAGS, file, ...args], options);
}

/** Stops every child still running (a suite's afterAll, whatever its tests left). */
export async function stopChildren(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  const left = [...running].filter((c) => c.exitCode === null && c.signalCode === null);
  await Promise.all(left.map((c) => new Promise<void>((resolve) => (c.once("exit", () => resolve()), c.kill(signal)))));
}

const leftovers = new Set<() => Promise<unknown>>();

/** Something a test opened (a browser) to close after its file if the test did not; the answer untracks it. */
export function trackLeftover(close: () => Promise<unknown>): () => void {
  leftovers.add(close);
  return () => void leftovers.delete(close);
}

/** Closes what the tests of a file left open, then stops the processes they left running. */
export async function stopLeftovers(): Promise<void> {
  const closing = [...leftovers];
  leftovers.clear();
  await Promise.all(closing.map((close) => close().catch(() => undefined)));
  await stopChildren();
}

/** Processes started here and still running. */
export function runningChildren(): number {
  return [...running].filter((c) => c.exitCode === null && c.signalCode === null).length;
}
