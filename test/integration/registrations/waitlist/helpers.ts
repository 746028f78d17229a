import type { PayingTestApp } from "../../../support/app.ts";
import { payingAppForFile, webhooksDelivered, type FileAppOptions } from "../app.ts";

/** A waiting-list test file's app (../app.ts): each test starts with Stripe's webhooks delivered and nothing still on its way. */
export function waitlistApp(options: FileAppOptions = {}): PayingTestApp {
  return payingAppForFile({
    ...options,
    async eachTest(t) {
      await webhooksDelivered(t);
      await options.eachTest?.(t);
    },
  });
}
