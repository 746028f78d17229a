/**
 * Timeouts in the tests are guards against a hang, never budgets: each is far above what the wait takes on a quiet
 * machine, and TEST_TIMEOUT_SCALE (default 1; `npm test` sets it from the machine's load when it starts) stretches
 * them all on a loaded one.
 */
export const TIMEOUT_SCALE = Math.min(10, Math.max(1, Number(process.env.TEST_TIMEOUT_SCALE) || 1));

export function scaledMs(ms: number): number {
  return Math.round(ms * TIMEOUT_SCALE);
}
