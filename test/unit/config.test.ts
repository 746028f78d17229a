import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";

describe("loadConfig", () => {
  it("runs on embedded defaults with no variables", () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.database.client).toBe("better-sqlite3");
    expect(c.redis).toBeUndefined();
    expect(c.stripe).toBeUndefined();
    expect(c.brandName).toBe("Ironside");
  });

  it("uses MySQL and Redis when their URLs are set", () => {
    const c = loadConfig({ DATABASE_URL: "mysql://root@127.0.0.1:3306/shop", REDIS_URL: "redis://127.0.0.1:6379" });
    expect(c.database).toEqual({ client: "mysql2", url: "mysql://root@127.0.0.1:3306/shop" });
    expect(c.redis?.url).toBe("redis://127.0.0.1:6379");
  });

  it("refuses production without its services, in one line naming every missing variable", () => {
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrowError(
      new ConfigError(
        "Production needs: SESSION_SECRET, DATABASE_URL (mysql://...), REDIS_URL, PUBLIC_URL (https://...), STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET, SMTP_URL (smtp://user:pass@host:587), or MAIL_FILES_IN_PRODUCTION=1 to write e-mails as files to MAIL_DIR",
      ),
    );
    expect(() =>
      loadConfig({ NODE_ENV: "production", SESSION_SECRET: "x".repeat(40), DATABASE_URL: "mysql://db/shop", STRIPE_SECRET_KEY: "sk", STRIPE_PUBLISHABLE_KEY: "pk", STRIPE_WEBHOOK_SECRET: "whsec_x", PUBLIC_URL: "https://shop.example", MAIL_FILES_IN_PRODUCTION: "1" }),
    ).toThrowError(new ConfigError("Production needs: REDIS_URL"));
  });

  it("accepts a complete production configuration and refuses test routes there", () => {
    const env = {
      NODE_ENV: "production",
      SESSION_SECRET: "x".repeat(40),
      DATABASE_URL: "mysql://db/shop",
      REDIS_URL: "redis://cache:6379",
      STRIPE_SECRET_KEY: "sk_live_x",
      STRIPE_PUBLISHABLE_KEY: "pk_live_x",
      STRIPE_WEBHOOK_SECRET: "whsec_x",
      PUBLIC_URL: "https://shop.example/",
      SMTP_URL: "smtp://mailer:secret@smtp.example:587",
    };
    expect(loadConfig(env).isProduction).toBe(true);
    expect(loadConfig(env).publicUrl).toBe("https://shop.example");
    const { PUBLIC_URL: _omitted, ...withoutPublicUrl } = env;
    expect(() => loadConfig(withoutPublicUrl)).toThrowError("Production needs: PUBLIC_URL (https://...)");
    expect(() => loadConfig({ ...env, ENABLE_TEST_ROUTES: "1" })).toThrowError(/ENABLE_TEST_ROUTES/);
    expect(() => loadConfig({ ...env, CLOCK_FILE: "var/clock.json" })).toThrowError(/CLOCK_FILE is refused in production/);
    expect(() => loadConfig({ ...env, BALANCE_JOB_INTERVAL_MS: "500" })).toThrowError(/BALANCE_JOB_INTERVAL_MS is refused in production/);
    expect(() => loadConfig({ ...env, WAITING_LIST_JOB_INTERVAL_MS: "250" })).toThrowError(/WAITING_LIST_JOB_INTERVAL_MS is refused in production/);
    expect(() => loadConfig({ ...env, REFUND_JOB_INTERVAL_MS: "200" })).toThrowError(/REFUND_JOB_INTERVAL_MS is refused in production/);
    expect(loadConfig(env)).toMatchObject({ clockFile: undefined, balanceJobIntervalMs: 60_000, waitingListJobIntervalMs: 15_000, refundJobIntervalMs: 5_000, webhookWaitMs: 2_000 });
    expect(loadConfig({ ...env, STRIPE_WEBHOOK_WAIT_MS: "0" }).webhookWaitMs).toBe(0);
    expect(() => loadConfig({ ...env, STRIPE_WEBHOOK_WAIT_MS: "20000" })).toThrowError(/STRIPE_WEBHOOK_WAIT_MS/);
  });

  it("follows var/clock.json in development, only a given CLOCK_FILE under NODE_ENV=test, runs the balance job every minute and polls the waiting list every 15 s unless told", () => {
    expect(loadConfig({}).clockFile).toBe(path.join("var", "clock.json"));
    expect(loadConfig({ NODE_ENV: "test" }).clockFile).toBeUndefined();
    expect(loadConfig({ NODE_ENV: "test", CLOCK_FILE: "/tmp/e2e/clock.json" }).clockFile).toBe("/tmp/e2e/clock.json");
    expect(loadConfig({}).balanceJobIntervalMs).toBe(60_000);
    expect(loadConfig({ NODE_ENV: "test", BALANCE_JOB_INTERVAL_MS: "500" }).balanceJobIntervalMs).toBe(500);
    expect(() => loadConfig({ BALANCE_JOB_INTERVAL_MS: "5" })).toThrowError(/BALANCE_JOB_INTERVAL_MS/);
    expect(loadConfig({}).waitingListJobIntervalMs).toBe(15_000);
    expect(loadConfig({ NODE_ENV: "test", WAITING_LIST_JOB_INTERVAL_MS: "250" }).waitingListJobIntervalMs).toBe(250);
    expect(() => loadConfig({ WAITING_LIST_JOB_INTERVAL_MS: "5" })).toThrowError(/WAITING_LIST_JOB_INTERVAL_MS/);
    expect(loadConfig({}).refundJobIntervalMs).toBe(5_000);
    expect(loadConfig({ NODE_ENV: "test", REFUND_JOB_INTERVAL_MS: "200" }).refundJobIntervalMs).toBe(200);
    expect(loadConfig({}).webhookWaitMs).toBe(2_000);
    expect(loadConfig({ NODE_ENV: "test" }).webhookWaitMs).toBe(0);
    expect(loadConfig({ NODE_ENV: "test", STRIPE_WEBHOOK_WAIT_MS: "5000" }).webhookWaitMs).toBe(5_000);
  });

  it("refuses production without SMTP_URL unless files are asked for, and a webhook secret that is not one", () => {
    const env = {
      NODE_ENV: "production",
      SESSION_SECRET: "x".repeat(40),
      DATABASE_URL: "mysql://db/shop",
      REDIS_URL: "redis://cache:6379",
      STRIPE_SECRET_KEY: "sk_live_x",
      STRIPE_PUBLISHABLE_KEY: "pk_live_x",
      STRIPE_WEBHOOK_SECRET: "whsec_x",
      PUBLIC_URL: "https://shop.example/",
    };
    expect(() => loadConfig(env)).toThrowError(
      new ConfigError("Production needs: SMTP_URL (smtp://user:pass@host:587), or MAIL_FILES_IN_PRODUCTION=1 to write e-mails as files to MAIL_DIR"),
    );
    expect(loadConfig({ ...env, MAIL_FILES_IN_PRODUCTION: "1" }).mail.smtpUrl).toBeUndefined();
    expect(() => loadConfig({ ...env, MAIL_FILES_IN_PRODUCTION: "yes" })).toThrowError(/MAIL_FILES_IN_PRODUCTION/);
    expect(() => loadConfig({ ...env, SMTP_URL: "smtp://smtp.example", STRIPE_WEBHOOK_SECRET: "sk_live_x" })).toThrowError(/whsec_/);
    expect(loadConfig({ ...env, SMTP_URL: "smtp://smtp.example", STRIPE_API_URL: "http://127.0.0.1:12111" }).stripe?.apiUrl).toBe("http://127.0.0.1:12111");
    expect(() => loadConfig({ ...env, SMTP_URL: "smtp://smtp.example", STRIPE_API_URL: "ftp://x" })).toThrowError(/STRIPE_API_URL/);
  });

  it("rejects a non-MySQL DATABASE_URL, half a Stripe configuration and a bad port", () => {
    expect(() => loadConfig({ DATABASE_URL: "postgres://x/y" })).toThrowError(/mysql:\/\//);
    expect(() => loadConfig({ STRIPE_SECRET_KEY: "sk_test_x" })).toThrowError(/STRIPE_PUBLISHABLE_KEY/);
    expect(() => loadConfig({ PORT: "abc" })).toThrowError(/PORT/);
    expect(() => loadConfig({ PUBLIC_URL: "javascript://evil.example" })).toThrowError(/PUBLIC_URL/);
  });

  it("names every missing and every invalid setting in one error, so a start is fixed in one round", () => {
    let error: unknown;
    try {
      loadConfig({ NODE_ENV: "production", PORT: "abc", SESSION_SECRET: "short", DATABASE_URL: "postgres://x/y", STRIPE_SECRET_KEY: "sk_live_x", REDIS_URL: "redis://r", LOG_LEVEL: "loud" });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(2);
    expect(problems[0]).toBe(
      "Production needs: PUBLIC_URL (https://...), SESSION_SECRET of at least 32 characters, SMTP_URL (smtp://user:pass@host:587), or MAIL_FILES_IN_PRODUCTION=1 to write e-mails as files to MAIL_DIR",
    );
    for (const name of ["PORT", "LOG_LEVEL", "DATABASE_URL must be a mysql:// URL", "STRIPE_PUBLISHABLE_KEY"]) expect(problems[1]).toContain(name);
    expect((error as ConfigError).message).toBe(problems.join("; "));
  });

  it("asks an operator command for DATABASE_URL alone in production, and still refuses a bad value", () => {
    expect(() => loadConfig({ NODE_ENV: "production" }, "command")).toThrowError(new ConfigError("Production needs: DATABASE_URL (mysql://...)"));
    const c = loadConfig({ NODE_ENV: "production", DATABASE_URL: "mysql://db/shop" }, "command");
    expect(c.database).toEqual({ client: "mysql2", url: "mysql://db/shop" });
    expect(() => loadConfig({ NODE_ENV: "production", DATABASE_URL: "mysql://db/shop", PORT: "abc" }, "command")).toThrowError(/PORT/);
  });

  it("allows cookies without Secure only for a plain-HTTP trial on this machine, never in a real deployment", () => {
    const env = {
      NODE_ENV: "production",
      SESSION_SECRET: "x".repeat(40),
      DATABASE_URL: "mysql://db/shop",
      REDIS_URL: "redis://cache:6379",
      STRIPE_SECRET_KEY: "sk_test_x",
      STRIPE_PUBLISHABLE_KEY: "pk_test_x",
      STRIPE_WEBHOOK_SECRET: "whsec_x",
      MAIL_FILES_IN_PRODUCTION: "1",
    };
    expect(loadConfig({ ...env, PUBLIC_URL: "https://shop.example" }).https).toBe(true);
    const trial = loadConfig({ ...env, PUBLIC_URL: "http://localhost:8080", LOCAL_HTTP_TRIAL: "1" });
    expect(trial.https).toBe(false);
    expect(trial.isProduction).toBe(true);
    expect(() => loadConfig({ ...env, PUBLIC_URL: "https://shop.example", LOCAL_HTTP_TRIAL: "1" })).toThrowError(/LOCAL_HTTP_TRIAL=1 is only for a trial on this machine/);
    expect(() => loadConfig({ ...env, PUBLIC_URL: "http://shop.example", LOCAL_HTTP_TRIAL: "1" })).toThrowError(/LOCAL_HTTP_TRIAL/);
    expect(() => loadConfig({ ...env, PUBLIC_URL: "http://localhost:8080", LOCAL_HTTP_TRIAL: "1", STRIPE_SECRET_KEY: "sk_live_x" })).toThrowError(/never live ones/);
    expect(loadConfig({}).https).toBe(false);
  });

  it("trusts no proxy unless told how many there are, so X-Forwarded-For cannot choose a client's address", () => {
    expect(loadConfig({}).trustProxyHops).toBe(0);
    expect(loadConfig({ TRUST_PROXY_HOPS: "2" }).trustProxyHops).toBe(2);
  });
});

describe("ironside.env.example", () => {
  it("lists every variable the site reads, and nothing else", async () => {
    const fs = await import("node:fs");
    const { CONFIG_VARIABLES } = await import("../../src/config.ts");
    const text = fs.readFileSync(new URL("../../ironside.env.example", import.meta.url), "utf8");
    const listed = [...text.matchAll(/^(?:# )?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]);
    expect([...listed].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});
