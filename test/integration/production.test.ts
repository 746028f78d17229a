import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { backend, clearPrefix, createMysqlDatabase } from "../support/app.ts";
import { startServer, type RunningServer } from "../support/server.ts";
import { closeRedis, connectRedis } from "../../src/redis.ts";
import { createLogger } from "../../src/logger.ts";
import { startFakeStripe, type FakeStripe } from "../../src/payments/offline/fakeStripeServer.ts";
import { scaledMs } from "../support/timeouts.ts";

/**
 * `src/server.ts` as the Dockerfile runs it (NODE_ENV=production, which needs MySQL and Redis): React's
 * production build renders, and the asynchronous request log loses no line on a normal stop.
 */
const dir = path.join(os.tmpdir(), `production-${randomBytes(4).toString("hex")}`);
const prefix = `test:${randomBytes(6).toString("hex")}:`;
let server: RunningServer | undefined;
let dropDatabase = async () => {};
let stripe: FakeStripe | undefined;

const REQUESTS = 300;

describe.runIf(backend === "mysql")("the production server", () => {
  afterAll(async () => {
    await server?.stop("SIGKILL");
    await dropDatabase();
    await stripe?.close();
    const redis = await connectRedis(process.env.TEST_REDIS_URL!, createLogger("silent"));
    await clearPrefix(redis, prefix);
    await closeRedis(redis);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("renders with React's production build and writes every request's log line before it exits", { timeout: 60_000 }, async () => {
    const database = await createMysqlDatabase();
    dropDatabase = database.drop;
    stripe = await startFakeStripe();
    server = await startServer({
      NODE_ENV: "production",
      SESSION_SECRET: randomBytes(32).toString("hex"),
      DATABASE_URL: database.url,
      REDIS_URL: process.env.TEST_REDIS_URL!,
      REDIS_PREFIX: prefix,
      PUBLIC_URL: "https://production.example",
      // Stripe's API on loopback (the offline fake): the start and /readyz check that it accepts the keys.
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
      STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
      STRIPE_API_URL: `http://${stripe.host}:${stripe.port}`,
      MAIL_FILES_IN_PRODUCTION: "1",
      MAIL_DIR: path.join(dir, "mail"),
    });
    const listening = server.output().split("\n").find((l) => l.includes("listening on"));
    expect(JSON.parse(listening!)).toMatchObject({ react: "production" });
    // Polled as a load balancer polls it: on a loaded machine one check may miss its deadline (750 ms for Redis).
    const readiness = async () => (await fetch(`${server!.url}/readyz`)).json();
    await expect.poll(readiness, { timeout: scaledMs(10_000), interval: 200 }).toEqual({ status: "ok", checks: { database: "ok", redis: "ok", stripe: "ok" } });
    // The start's own key check runs beside /readyz's: its line may come a moment after the answer.
    await expect.poll(() => server!.output(), { timeout: scaledMs(10_000), interval: 50 }).toContain('"msg":"stripe: the keys answer"');
    // Everything from here on (the helper keeps only a tail of the output).
    let output = "";
    server.child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));

    // Bursts of requests, so lines are still buffered when the stop begins.
    for (let sent = 0; sent < REQUESTS; sent += 50) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => fetch(`${server!.url}/about?n=${sent + i}`)));
      expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
      await Promise.all(answers.map((a) => a.text()));
    }
    expect(await server.stop("SIGTERM")).toBe(0);

    const lines = output.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { msg: string; req?: { url: string } });
    const logged = new Set(lines.filter((l) => l.msg === "request completed" && l.req?.url.startsWith("/about?n=")).map((l) => l.req!.url));
    expect(logged.size).toBe(REQUESTS);
    expect(lines.at(-1)!.msg).toBe("stopped");
  });
});
