/**
 * A setup file of every test project: test files share a worker's module graph (`isolate: false`), so what a file
 * left changed in it is put back before the next file runs, as a fresh module graph would have it: the business
 * clock, real timers and the environment variables.
 */
import { afterAll, beforeAll, vi } from "vitest";
import { resetClock, stopFollowingClockFile } from "../../src/clock.ts";

let env: NodeJS.ProcessEnv = {};
beforeAll(() => {
  env = { ...process.env };
});

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  Object.assign(process.env, env);
  vi.useRealTimers();
  resetClock();
  stopFollowingClockFile();
});
