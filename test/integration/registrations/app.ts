import { afterAll, beforeAll, beforeEach } from "vitest";
import { createPayingTestApp, type PayingTestApp } from "../../support/app.ts";
import type { Logger } from "../../../src/logger.ts";

export interface FileAppOptions {
  /** The app's environment; behind one proxy as in production unless it says otherwise (each visitor its own X-Forwarded-For). */
  env?: Record<string, string>;
  logger?: Logger;
  /** Once, after the app is made (rows every test of the file starts from). */
  setup?: (t: PayingTestApp) => Promise<void>;
  /** Before each test. */
  eachTest?: (t: PayingTestApp) => Promise<void>;
}

/**
 * The paying app (offline Stripe, outbox to a folder) of one test file of the registration wing: made before the
 * file's tests, closed after them. What it returns stands for the app: its properties are the app's once the file's
 * beforeAll ran (reading one earlier is a mistake and throws), so a file declares `const t = ...App()` and uses `t`
 * as it used the app it made itself.
 */
export function payingAppForFile(options: FileAppOptions = {}): PayingTestApp {
  let made: PayingTestApp | undefined;
  beforeAll(async () => {
    made = await createPayingTestApp({ TRUST_PROXY_HOPS: "1", ...options.env }, options.logger ? { logger: options.logger } : {});
    await options.setup?.(made);
  });
  afterAll(async () => {
    await made?.close();
  });
  if (options.eachTest) beforeEach(async () => options.eachTest!(made!));
  const app = () => {
    if (!made) throw new Error("the test app is made in the file's beforeAll");
    return made;
  };
  // Spread (`{ ...t, gateway }`) and `in` see the app's own properties too.
  return new Proxy({} as PayingTestApp, {
    get: (_target, key) => Reflect.get(app(), key),
    has: (_target, key) => Reflect.has(app(), key),
    ownKeys: () => Reflect.ownKeys(app()),
    getOwnPropertyDescriptor(_target, key) {
      const own = Reflect.getOwnPropertyDescriptor(app(), key);
      return own && { ...own, configurable: true };
    },
  });
}

/** Each test starts with Stripe's webhooks delivered and nothing of the previous test's still on its way. */
export async function webhooksDelivered(t: PayingTestApp): Promise<void> {
  t.fake.autoDeliver = true;
  await t.fake.idle();
}
