import type { PayingTestApp } from "../../../support/app.ts";
import { payingAppForFile, webhooksDelivered, type FileAppOptions } from "../app.ts";

/**
 * A booking test file's app (../app.ts). `webhooks`: `eachTest` (the default) starts each test with Stripe's webhooks
 * delivered and nothing still on its way; `never` keeps them undelivered (the test settles each payment itself, by the
 * return page or a webhook it sends); `asIs` leaves the offline Stripe as it starts.
 */
export function bookingApp(options: FileAppOptions & { webhooks?: "eachTest" | "never" | "asIs" } = {}): PayingTestApp {
  const webhooks = options.webhooks ?? "eachTest";
  return payingAppForFile({
    ...options,
    async setup(t) {
      if (webhooks === "never") t.fake.autoDeliver = false;
      await options.setup?.(t);
    },
    eachTest:
      webhooks === "eachTest" || options.eachTest
        ? async (t) => {
            if (webhooks === "eachTest") await webhooksDelivered(t);
            await options.eachTest?.(t);
          }
        : undefined,
  });
}
