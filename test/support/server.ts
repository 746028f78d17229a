import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { spawnNodeBuilt, spawnNodeScript } from "./children.ts";
import { scaledMs } from "./timeouts.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** A guard against a start that hangs, not a budget: a loaded machine may take a while, so it is long and scaled. */
const START_GUARD_MS = scaledMs(120_000);

export interface RunningServer {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/**
 * Starts `src/server.ts` from its source (through tsx: no build to go stale under a test; `npm start` runs the same
 * server compiled, build/server.js) and waits for its "listening" log line.
 * With `logFile`, every line the process writes is also appended there (a benchmark keeps its servers' logs).
 */
export function startServer(env: Record<string, string>, options: ServerOptions = {}): Promise<RunningServer> {
  return spawnServer(env, options).listening;
}

export interface ServerOptions {
  logFile?: string;
  nodeArgs?: string[];
  /**
   * A build of the server (esbuild.server.mjs --outfile FILE) to run on plain node, as `npm start` does, instead of
   * src/server.ts through tsx: for a test whose subject is what the server does, not how its source loads (a start
   * through tsx compiles the whole import graph, seconds of CPU per process).
   */
  built?: string;
}

export interface StartingServer {
  child: ChildProcess;
  output: () => string;
  /** Resolves once the "listening" line is logged; rejects (and kills the process) when it exits first or hangs. */
  listening: Promise<RunningServer>;
}

/**
 * Spawns `src/server.ts` or the `built` server (`nodeArgs` before it, e.g. `--cpu-prof`); its output can be read while
 * it starts. The process is stopped with the test process at the latest (test/support/children.ts), and a start that
 * hangs is killed.
 */
export function spawnServer(env: Record<string, string>, options: ServerOptions = {}): StartingServer {
  const spawnOptions = {
    cwd: root,
    // LOG_LEVEL stays info: the "listening" line tells the port.
    env: { ...process.env, NODE_ENV: "test", PORT: "0", HOST: "127.0.0.1", ...env, LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"] as ("ignore" | "pipe")[],
  };
  const child = options.built ? spawnNodeBuilt(options.built, [], spawnOptions, options.nodeArgs) : spawnNodeScript("src/server.ts", [], spawnOptions, options.nodeArgs);
  // Only the tail is kept: a benchmark's server logs every request, and a growing string would slow this process.
  let log = "";
  const LOG_TAIL = 64 * 1024;
  const file = options.logFile ? fs.createWriteStream(options.logFile, { flags: "a" }) : undefined;
  let started = false;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // "close" comes after the last output (stdio closed); "exit" may come before it.
  child.once("close", () => file?.end());
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start within ${START_GUARD_MS / 1000} s:\n${log}`));
    }, START_GUARD_MS);
    const onData = (chunk: Buffer) => {
      file?.write(chunk);
      log = (log + chunk.toString()).slice(-LOG_TAIL);
      const m = started ? null : /listening on (http:\/\/localhost:\d+)/.exec(log);
      if (m?.[1]) {
        started = true;
        clearTimeout(timer);
        resolve(m[1].replace("localhost", "127.0.0.1"));
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then((code) => reject(new Error(`server exited with ${code}:\n${log}`)));
  });
  const listening = url.then((u) => running(u));
  return { child, output: () => log, listening };

  function running(url: string): RunningServer {
    return {
      url,
      child,
      output: () => log,
      stop: async (signal = "SIGTERM") => {
        if (child.exitCode === null) child.kill(signal);
        return exited;
      },
    };
  }
}
