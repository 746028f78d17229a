import { useSyncExternalStore } from "react";

const never = () => () => undefined;

/**
 * False on the server and while the page hydrates, true once the widget runs in the browser: for parts that only
 * work with JavaScript (steppers, rotation). React re-renders with true right after hydration, without an effect.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(never, () => true, () => false);
}
