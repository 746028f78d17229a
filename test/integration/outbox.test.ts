import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { startSmtpServer } from "../support/smtp.ts";
import { createMailTransport } from "../../src/email/transport.ts";
import { createOutbox, enqueueEmail } from "../../src/email/outbox.ts";
import { createLogger } from "../../src/logger.ts";

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

beforeAll(async () => {
  t = await createTestApp();
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const email = (n: number) => ({
  kind: "test",
  reference: `test:${n}`,
  to: `athlete${n}@example.com`,
  subject: `Camp confirmation ${n}`,
  text: `See you on the mat, #${n}.`,
  attachments: [{ filename: "camp.ics", contentType: "text/calendar", content: "BEGIN:VCALENDAR\r\nEND:VCALENDAR" }],
});

describe("e-mail outbox", () => {
  it("writes nothing when the caller's transaction rolls back", async () => {
    await expect(
      t.db.transaction(async (trx) => {
        await enqueueEmail(trx, email(0));
        throw new Error("registration failed");
      }),
    ).rejects.toThrow("registration failed");
    expect(await t.db("email_outbox").where({ reference: "test:0" })).toHaveLength(0);
  });

  it("sends a queued e-mail through SMTP once, with its attachment", async () => {
    const transport = createMailTransport({ smtpUrl: smtp.url, dir: t.mailDir });
    const outbox = createOutbox({ db: t.db, transport, from: "Ironside <no-reply@ironsidewrestling.com>", logger: createLogger("silent") });
    const id = await t.db.transaction((trx) => enqueueEmail(trx, email(1)));
    expect(await outbox.drain()).toBe(1);
    expect(await outbox.drain()).toBe(0);
    const mine = smtp.received.filter((m) => m.to.includes("athlete1@example.com"));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.raw).toContain("Subject: Camp confirmation 1");
    expect(mine[0]!.raw).toContain("camp.ics");
    const row = await t.db("email_outbox").where({ id }).first();
    expect(row.status).toBe("sent");
    expect(row.attempts).toBe(1);
    transport.close();
  });

  it("retries later when the SMTP server refuses, then sends", async () => {
    const transport = createMailTransport({ smtpUrl: smtp.url, dir: t.mailDir });
    const outbox = createOutbox({ db: t.db, transport, from: "no-reply@ironsidewrestling.com", logger: createLogger("silent") });
    const id = await t.db.transaction((trx) => enqueueEmail(trx, email(2)));
    smtp.refuse.on = true;
    expect(await outbox.drain()).toBe(0);
    smtp.refuse.on = false;
    let row = await t.db("email_outbox").where({ id }).first();
    expect(row.status).toBe("pending");
    expect(row.attempts).toBe(1);
    expect(row.last_error).toMatch(/Mailbox unavailable/);
    // Not due yet: the backoff holds it.
    expect(await outbox.drain()).toBe(0);
    await t.db("email_outbox").where({ id }).update({ next_attempt_at: new Date(Date.now() - 1000) });
    expect(await outbox.drain()).toBe(1);
    row = await t.db("email_outbox").where({ id }).first();
    expect(row.status).toBe("sent");
    expect(row.attempts).toBe(2);
    transport.close();
  });

  it("writes .eml files when no SMTP server is configured", async () => {
    const id = await t.db.transaction((trx) => enqueueEmail(trx, email(3)));
    await t.outbox.drain();
    const files = fs.readdirSync(t.mailDir).filter((f) => f.endsWith(".eml"));
    const contents = files.map((f) => fs.readFileSync(`${t.mailDir}/${f}`, "utf8"));
    expect(contents.some((c) => c.includes("Subject: Camp confirmation 3") && c.includes("athlete3@example.com"))).toBe(true);
    expect((await t.db("email_outbox").where({ id }).first()).status).toBe("sent");
  });

  it("sends e-mail after e-mail over one SMTP connection, kept open between them", async () => {
    const transport = createMailTransport({ smtpUrl: smtp.url, dir: t.mailDir });
    const outbox = createOutbox({ db: t.db, transport, from: "no-reply@ironsidewrestling.com", logger: createLogger("silent") });
    const before = smtp.connections();
    for (const n of [4, 5, 6]) {
      await t.db.transaction((trx) => enqueueEmail(trx, email(n)));
      expect(await outbox.drain()).toBe(1);
    }
    expect(smtp.received.filter((m) => /athlete[456]@/.test(m.to[0]!))).toHaveLength(3);
    expect(smtp.connections() - before).toBe(1);
    transport.close();
  });

  it("makes the .eml folder once, and again only if it was removed", async () => {
    const dir = path.join(t.mailDir, "own");
    const transport = createMailTransport({ smtpUrl: undefined, dir });
    const message = (n: number) => ({ from: "no-reply@ironsidewrestling.com", to: `athlete${n}@example.com`, subject: `Kept ${n}`, text: "Hi" });
    const mkdir = vi.spyOn(fs.promises, "mkdir");
    try {
      for (const n of [7, 8, 9]) await transport.send(message(n));
      expect(mkdir).toHaveBeenCalledTimes(1);
      fs.rmSync(dir, { recursive: true });
      await transport.send(message(10));
      expect(mkdir).toHaveBeenCalledTimes(2);
    } finally {
      mkdir.mockRestore();
    }
    const subjects = fs.readdirSync(dir).map((f) => /Subject: (.*)/.exec(fs.readFileSync(path.join(dir, f), "utf8"))![1]);
    expect(subjects).toEqual(["Kept 10"]);
  });
});
