import { scaledMs } from "./timeouts.ts";

/**
 * How long a wait may take before it fails with its own message: far beyond what any wait takes on a quiet machine
 * (a few seconds at most), and below the tests' 60 s timeout so that a condition that never comes is named rather than
 * reported as a timeout. A loaded CI machine makes a test slower, never red.
 */
const CEILING_MS = 45_000;

/** Polls `read` until `done` holds for what it read, and answers that. */
export async function untilRead<T>(read: () => Promise<T> | T, done: (value: T) => boolean, everyMs = 25): Promise<T> {
  const end = Date.now() + scaledMs(CEILING_MS);
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`condition not met in ${scaledMs(CEILING_MS) / 1000} s; last read: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Polls `check` until it answers something truthy, and answers that. */
export async function until<T>(check: () => Promise<T> | T, everyMs = 25): Promise<NonNullable<T>> {
  return (await untilRead(check, Boolean, everyMs)) as NonNullable<T>;
}
