import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { scaledMs } from "./support/timeouts.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// Integration tests run on the embedded defaults, and again on MySQL + Redis when both are given.
const withServices = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
const integration = ["test/integration/**/*.test.ts", "test/integration/**/*.test.tsx", "test/security/**/*.test.ts"];

/** `--project integration-mysql` named on the command line (a pattern such as `integration*` does not count). */
function projectsNamed(argv: string[]): string[] {
  return argv.flatMap((arg, i) => (arg === "--project" ? [argv[i + 1] ?? ""] : arg.startsWith("--project=") ? [arg.slice("--project=".length)] : []));
}
if (projectsNamed(process.argv).includes("integration-mysql") && !withServices) {
  // Without this, vitest would answer green having run nothing.
  throw new Error("The integration-mysql project needs TEST_DATABASE_URL and TEST_REDIS_URL (see docs/running.md, Tests)");
}

export default defineConfig({
  root,
  test: {
    pool: "forks",
    execArgv: ["--import", "tsx"],
    // A worker runs file after file in one module graph instead of starting and importing the app afresh for each
    // (that start was most of the unit and integration time). What a file changes for the next is put back after
    // it (test/support/betweenFiles.ts); each project keeps its own workers (TEST_BACKEND differs).
    isolate: false,
    // Guards against a hang, scaled by TEST_TIMEOUT_SCALE (test/support/timeouts.ts): a test waits on readiness, not a clock.
    testTimeout: scaledMs(60_000),
    hookTimeout: scaledMs(120_000),
    teardownTimeout: scaledMs(60_000),
    // expect.poll waits for something to become true (a dialog shown, a row written): 1 s by default, which a loaded
    // machine's Chromium can miss; a guard it is.
    expect: { poll: { timeout: scaledMs(10_000) } },
    // Whatever a file's tests started and left running (a test that timed out) is stopped after the file.
    setupFiles: ["test/support/stopLeftovers.ts", "test/support/betweenFiles.ts"],
    projects: [
      { extends: true as const, test: { name: "unit", include: ["test/unit/**/*.test.ts", "test/unit/**/*.test.tsx"] } },
      { extends: true, test: { name: "integration", include: integration, env: { TEST_BACKEND: "sqlite" } } },
      ...(withServices
        ? [{ extends: true, test: { name: "integration-mysql", include: integration, env: { TEST_BACKEND: "mysql" } } } satisfies TestProjectInlineConfiguration]
        : []),
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.e2e.ts"],
          globalSetup: ["test/e2e/globalSetup.ts"],
          fileParallelism: false,
          testTimeout: scaledMs(120_000),
          hookTimeout: scaledMs(120_000),
        },
      },
    ],
  },
});
