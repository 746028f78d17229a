import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { backend, createTestApp, type TestApp } from "../support/app.ts";
import { createDb, type Db } from "../../src/db/knex.ts";
import { createOutbox, enqueueEmail, enqueueEmails, type Outbox } from "../../src/email/outbox.ts";
import type { MailMessage, MailTransport } from "../../src/email/transport.ts";
import { noteQueued, takeCommitted } from "../../src/email/committedEmails.ts";
import { createLogger } from "../../src/logger.ts";

// Two app instances on one database: `t` and a second knex of its own on the same database (a file on SQLite).
const sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), "outbox-handover-"));
let t: TestApp;
let other: Db;

/** A transport that keeps what it sends; after hold(), a send waits until release(), which may make it fail. */
function recordingTransport() {
  const sent: MailMessage[] = [];
  let gate: Promise<void> | undefined;
  let open: (() => void) | undefined;
  let failWith: Error | undefined;
  return {
    sent,
    async send(message: MailMessage) {
      if (gate) await gate;
      if (failWith) throw failWith;
      sent.push(message);
    },
    close() {},
    hold() {
      gate = new Promise<void>((resolve) => (open = resolve));
    },
    release(error?: Error) {
      failWith = error;
      gate = undefined;
      open?.();
    },
  } satisfies MailTransport & Record<string, unknown>;
}

const logger = createLogger("silent");
const outboxOn = (db: Db, transport: MailTransport): Outbox => createOutbox({ db, transport, from: "Ironside <no-reply@ironsidewrestling.com>", logger });
const email = (n: number) => ({ kind: "test", reference: `handover:${n}`, to: `family${n}@example.com`, subject: `Handover ${n}`, text: `Mail ${n}` });
const rowOf = (id: number) => t.db("email_outbox").where({ id }).first();

/** The statements a queue sends to the database while `work` runs (on either instance). */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (q: { sql: string }) => seen.push(q.sql.toLowerCase());
  for (const db of [t.db, other]) db.on("query", listener);
  try {
    await work();
  } finally {
    for (const db of [t.db, other]) db.off("query", listener);
  }
  return seen.filter((sql) => sql.includes("email_outbox"));
}

beforeAll(async () => {
  t = await createTestApp(backend === "sqlite" ? { SQLITE_PATH: path.join(sqliteDir, "app.sqlite3") } : {});
  other = createDb(t.config.database, logger);
});
afterEach(async () => {
  // Nothing left due between tests: each counts its own statements.
  await t.db("email_outbox").update({ status: "sent" });
});
afterAll(async () => {
  await other.destroy();
  await t.close();
  fs.rmSync(sqliteDir, { recursive: true, force: true });
});

describe("the outbox claims an e-mail its process just committed by id", () => {
  it("sends it on wake() with a claim and a done update, without looking for due rows", async () => {
    const transport = recordingTransport();
    const outbox = outboxOn(t.db, transport);
    const id = await t.db.transaction((trx) => enqueueEmail(trx, email(1)));
    const statements = await statementsOf(async () => {
      outbox.wake();
      await outbox.stop();
    });
    expect(statements).toHaveLength(2);
    expect(statements.every((sql) => sql.startsWith("update"))).toBe(true);
    expect(transport.sent.map((m) => m.subject)).toEqual(["Handover 1"]);
    expect(await rowOf(id)).toMatchObject({ status: "sent", attempts: 1 });
  });

  it("hands over nothing a rolled-back transaction wrote, even when its id is taken again", async () => {
    const transport = recordingTransport();
    const outbox = outboxOn(t.db, transport);
    await expect(
      t.db.transaction(async (trx) => {
        await enqueueEmail(trx, email(2));
        throw new Error("registration failed");
      }),
    ).rejects.toThrow("registration failed");
    // On SQLite the next e-mail gets the rolled-back one's id; on MySQL a new one.
    const id = await t.db.transaction((trx) => enqueueEmail(trx, email(3)));
    outbox.wake();
    await outbox.stop();
    expect(transport.sent.map((m) => m.subject)).toEqual(["Handover 3"]);
    expect(await rowOf(id)).toMatchObject({ status: "sent", attempts: 1, subject: "Handover 3" });
  });

  it("e-mails queued by one INSERT are claimed by their inferred ids, without looking for due rows", async () => {
    const transport = recordingTransport();
    const outbox = outboxOn(t.db, transport);
    await t.db.transaction((trx) => enqueueEmails(trx, [email(4), email(5)]));
    const statements = await statementsOf(async () => {
      outbox.wake();
      await outbox.stop();
    });
    expect(statements.filter((sql) => sql.startsWith("select"))).toHaveLength(0);
    expect(transport.sent.map((m) => m.subject)).toEqual(["Handover 4", "Handover 5"]);
    const rows = await t.db("email_outbox").whereIn("reference", ["handover:4", "handover:5"]).orderBy("id");
    expect(rows.map((r) => [r.subject, r.status, r.attempts])).toEqual([["Handover 4", "sent", 1], ["Handover 5", "sent", 1]]);
  });

  it("a handed-over e-mail whose inferred id is another e-mail's row is not sent as that row; the row is sent as itself", async () => {
    const transport = recordingTransport();
    const outbox = outboxOn(t.db, transport);
    const id = await t.db.transaction((trx) => enqueueEmail(trx, email(8)));
    takeCommitted(t.db);
    // A wrong guess: what another e-mail says, handed over under this row's id.
    noteQueued(t.db, { id, attempts: 0, kind: "test", to_address: "someone@example.com", subject: "Not this row", text_body: "Wrong" });
    outbox.wake();
    await outbox.stop();
    expect(transport.sent.map((m) => m.subject)).toEqual(["Handover 8"]);
    expect(await rowOf(id)).toMatchObject({ status: "sent", attempts: 1, subject: "Handover 8" });
  });

  it("an e-mail handed over twice under its id is sent once", async () => {
    const transport = recordingTransport();
    const outbox = outboxOn(t.db, transport);
    const id = await t.db.transaction((trx) => enqueueEmail(trx, email(9)));
    const [handed] = takeCommitted(t.db).rows;
    noteQueued(t.db, handed);
    noteQueued(t.db, handed);
    outbox.wake();
    await outbox.stop();
    expect(transport.sent.map((m) => m.subject)).toEqual(["Handover 9"]);
    expect(await rowOf(id)).toMatchObject({ status: "sent", attempts: 1 });
  });

  it("an e-mail the other instance already took is not sent twice by the one that queued it", async () => {
    const mine = recordingTransport();
    const theirs = recordingTransport();
    const outbox = outboxOn(t.db, mine);
    const otherOutbox = outboxOn(other, theirs);
    const id = await t.db.transaction((trx) => enqueueEmail(trx, email(6)));
    // The other instance's timer finds it due first and is still sending it when this instance wakes.
    theirs.hold();
    const theirPass = otherOutbox.drain();
    await expect.poll(async () => (await rowOf(id)).status).toBe("sending");
    outbox.wake();
    await outbox.stop();
    theirs.release();
    expect(await theirPass).toBe(1);
    expect(mine.sent).toHaveLength(0);
    expect(theirs.sent.map((m) => m.subject)).toEqual(["Handover 6"]);
    expect(await rowOf(id)).toMatchObject({ status: "sent", attempts: 1 });
  });

  it("e-mails one process committed are claimed by one UPDATE and marked sent by one, each keeping its own text", async () => {
    const transport = recordingTransport();
    const outbox = outboxOn(t.db, transport);
    const withLink = (n: number) => ({ ...email(n), text: `Mail ${n}: https://shop.example.com/registrations/manage?token=secret${n}` });
    const ids = await t.db.transaction(async (trx) => [await enqueueEmail(trx, withLink(20)), await enqueueEmail(trx, withLink(21)), await enqueueEmail(trx, withLink(22))]);
    const statements = await statementsOf(async () => {
      outbox.wake();
      await outbox.stop();
    });
    expect(statements).toHaveLength(2);
    expect(statements.every((sql) => sql.startsWith("update"))).toBe(true);
    expect(transport.sent.map((m) => m.text)).toEqual([20, 21, 22].map((n) => `Mail ${n}: https://shop.example.com/registrations/manage?token=secret${n}`));
    const rows = await t.db("email_outbox").whereIn("id", ids).orderBy("id");
    expect(rows.map((r) => [r.subject, r.status, r.attempts])).toEqual([["Handover 20", "sent", 1], ["Handover 21", "sent", 1], ["Handover 22", "sent", 1]]);
    expect(rows.map((r) => String(r.text_body).slice(0, 8))).toEqual(["Mail 20:", "Mail 21:", "Mail 22:"]);
    for (const row of rows) expect(row.text_body).not.toContain("secret");
  });

  it("when the other instance took one of them first, the claimer sends only the e-mails its claim holds", async () => {
    const mine = recordingTransport();
    const theirs = recordingTransport();
    const outbox = outboxOn(t.db, mine);
    const otherOutbox = outboxOn(other, theirs);
    const ids = await t.db.transaction(async (trx) => [await enqueueEmail(trx, email(23)), await enqueueEmail(trx, email(24)), await enqueueEmail(trx, email(25))]);
    // The other instance's timer claims the middle one first and is still sending it when this instance wakes.
    await t.db("email_outbox").whereIn("id", [ids[0]!, ids[2]!]).update({ next_attempt_at: new Date(Date.now() + 60_000) });
    theirs.hold();
    const theirPass = otherOutbox.drain();
    await expect.poll(async () => (await rowOf(ids[1]!)).status).toBe("sending");
    await t.db("email_outbox").whereIn("id", [ids[0]!, ids[2]!]).update({ next_attempt_at: new Date(Date.now() - 1000) });
    outbox.wake();
    await outbox.stop();
    theirs.release();
    expect(await theirPass).toBe(1);
    expect(mine.sent.map((m) => m.subject)).toEqual(["Handover 23", "Handover 25"]);
    expect(theirs.sent.map((m) => m.subject)).toEqual(["Handover 24"]);
    const rows = await t.db("email_outbox").whereIn("id", ids).orderBy("id");
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([["sent", 1], ["sent", 1], ["sent", 1]]);
  });

  it("one e-mail of those claimed together that cannot be sent is retried later; the others are marked sent", async () => {
    const sent: string[] = [];
    const outbox = outboxOn(t.db, {
      async send(message: MailMessage) {
        if (message.subject === "Handover 27") throw new Error("mailbox unavailable");
        sent.push(message.subject);
      },
      close() {},
    });
    const ids = await t.db.transaction(async (trx) => [await enqueueEmail(trx, email(26)), await enqueueEmail(trx, email(27)), await enqueueEmail(trx, email(28))]);
    outbox.wake();
    await outbox.stop();
    expect(sent).toEqual(["Handover 26", "Handover 28"]);
    const rows = await t.db("email_outbox").whereIn("id", ids).orderBy("id");
    expect(rows.map((r) => [r.status, r.attempts, r.last_error])).toEqual([["sent", 1, null], ["pending", 1, "mailbox unavailable"], ["sent", 1, null]]);
    expect(new Date(rows[1].next_attempt_at).getTime()).toBeGreaterThan(Date.now());
  });

  it("a worker whose claim on a handed-over e-mail went stale cannot overwrite the outcome of the one that took over", async () => {
    const slow = recordingTransport();
    const fast = recordingTransport();
    const outbox = outboxOn(t.db, slow);
    const otherOutbox = outboxOn(other, fast);
    const id = await t.db.transaction((trx) => enqueueEmail(trx, email(7)));
    slow.hold();
    outbox.wake();
    await expect.poll(async () => (await rowOf(id)).status).toBe("sending");
    // This worker went silent: its claim is old enough to be taken over, and the other instance is sending it.
    await t.db("email_outbox").where({ id }).update({ claimed_at: new Date(Date.now() - 10 * 60_000) });
    fast.hold();
    const takenOver = otherOutbox.drain();
    await expect.poll(async () => (await rowOf(id)).attempts).toBe(2);
    // The silent one's send then fails: the failure it would record (pending again) must not replace the new claim.
    slow.release(new Error("connection reset"));
    await outbox.stop();
    expect(await rowOf(id)).toMatchObject({ status: "sending", attempts: 2, last_error: null });
    fast.release();
    expect(await takenOver).toBe(1);
    expect(await rowOf(id)).toMatchObject({ status: "sent", attempts: 2, last_error: null });
    expect(fast.sent.map((m) => m.subject)).toEqual(["Handover 7"]);
  });
});
