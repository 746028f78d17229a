/**
 * What the e-mail outbox costs per e-mail, counted: N e-mails queued by two app instances on one MySQL database,
 * each in its own transaction followed by `outbox.wake()` (as a paid registration does), CONCURRENCY at a time, and
 * sent through a local SMTP server (or written as .eml files with `--files`). Prints the outbox's statements per
 * e-mail by kind (the bench's counting proxy in front of MySQL), the SMTP connections opened, and this process's CPU
 * per e-mail (both instances and the SMTP server run in it; compare runs on the same machine, with the load beside).
 *
 * `--sends-only`: N sends straight through the transport (no database), for the send's own CPU per e-mail.
 * `--prof` adds a CPU profile of that phase (node:inspector), its busy time by package and the top functions.
 *
 *   TEST_DATABASE_URL=mysql://root@127.0.0.1:3306/test node --import tsx test/bench/outbox.ts [--emails 400] [--files] [--prof]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startSmtpServer } from "../support/smtp.ts";
import { Session } from "node:inspector/promises";
import { createDb } from "../../src/db/knex.ts";
import { createLogger } from "../../src/logger.ts";
import { createMailTransport } from "../../src/email/transport.ts";
import { createOutbox, enqueueEmail } from "../../src/email/outbox.ts";
import { createMigratedMysqlDatabase } from "../support/databases.ts";
import { startStatementCounter } from "./statementCounter.ts";
import { profileSummary } from "./rushMetrics.ts";

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const EMAILS = arg("--emails", 400);
const CONCURRENCY = arg("--concurrency", 8);
const FILES = args.includes("--files");
const PROF = args.includes("--prof");
const SENDS_ONLY = args.includes("--sends-only");
process.env.TEST_DATABASE_URL ??= "mysql://root@127.0.0.1:3306/test";

// The tests' SMTP server: it keeps what it receives (a few hundred e-mails here) and counts connections.
const smtp = await startSmtpServer();
const smtpUrl = FILES ? undefined : smtp.url;

const ics = ["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "SUMMARY:Summer camp", "DTSTART:20270615T130000Z", "END:VEVENT", "END:VCALENDAR"].join("\r\n");
const email = (n: number) => ({
  kind: "registration-confirmation",
  reference: `registration:${n}`,
  to: `family${n}@example.com`,
  subject: `You're registered: Summer camp (#${n})`,
  text: `Hello family ${n},\n\nSee you on the mat. Manage your registration: https://ironsidewrestling.com/manage/${"x".repeat(43)}\n`.repeat(4),
  html: `<p>Hello family ${n},</p><p>See you on the mat.</p>`.repeat(8),
  attachments: [{ filename: "camp.ics", contentType: "text/calendar", content: ics }],
});

if (SENDS_ONLY) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-sends-"));
  const transport = createMailTransport({ smtpUrl, dir });
  const send = (n: number) => transport.send({ from: "Ironside <no-reply@ironsidewrestling.com>", messageId: `<outbox-${n}@ironsidewrestling.com>`, ...email(n) });
  for (let n = 0; n < 20; n++) await send(n);
  const before = { connections: smtp.connections(), cpu: process.cpuUsage(), at: performance.now() };
  for (let n = 0; n < EMAILS; n++) await send(n);
  const cpu = process.cpuUsage(before.cpu);
  console.log(`${EMAILS} sends, one at a time, ${FILES ? ".eml files" : "SMTP (the local server's CPU included)"}; load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  console.log(`CPU per send: ${((cpu.user + cpu.system) / 1000 / EMAILS).toFixed(2)} ms (user ${(cpu.user / 1000).toFixed(0)} ms, system ${(cpu.system / 1000).toFixed(0)} ms); wall ${(performance.now() - before.at).toFixed(0)} ms`);
  if (!FILES) console.log(`SMTP connections opened: ${smtp.connections() - before.connections}`);
  transport.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await smtp.close();
  process.exit(0);
}

const database = await createMigratedMysqlDatabase();
const url = new URL(database.url);
const counter = await startStatementCounter({ host: url.hostname, port: Number(url.port || 3306) });
url.hostname = "127.0.0.1";
url.port = String(counter.port);
const mailDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-outbox-"));
const logger = createLogger("silent");

const instances = [0, 1].map(() => {
  const db = createDb({ client: "mysql2", url: url.toString() }, logger);
  const transport = createMailTransport({ smtpUrl, dir: mailDir });
  return { db, transport, outbox: createOutbox({ db, transport, from: "Ironside <no-reply@ironsidewrestling.com>", logger }) };
});

// Warm both instances (connections, JIT) before counting.
for (const [i, { db, outbox }] of instances.entries()) {
  await db.transaction((trx) => enqueueEmail(trx, email(-1 - i)));
  await outbox.drain();
}
await Promise.all(instances.map(({ outbox }) => outbox.drain()));

const sent = async () => Number((await instances[0]!.db("email_outbox").where({ status: "sent" }).count({ n: "*" }))[0]!.n);
const sentBefore = await sent();
const connectionsBefore = smtp.connections();
counter.texts.length = 0;
const statementsBefore = counter.statements();
const profiler = PROF ? new Session() : undefined;
if (profiler) {
  profiler.connect();
  await profiler.post("Profiler.enable");
  await profiler.post("Profiler.start");
}
const cpuBefore = process.cpuUsage();
const started = performance.now();

let next = 0;
async function family(): Promise<void> {
  while (next < EMAILS) {
    const n = next++;
    const { db, outbox } = instances[n % 2]!;
    await db.transaction((trx) => enqueueEmail(trx, email(n)));
    outbox.wake();
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, family));
// What the wakes left running, then what they left due (a pass each, as the timer would).
while ((await sent()) - sentBefore < EMAILS) await Promise.all(instances.map(({ outbox }) => outbox.drain()));

const cpu = process.cpuUsage(cpuBefore);
const wallMs = performance.now() - started;
const profile = profiler ? (await profiler.post("Profiler.stop")).profile : undefined;
const texts = counter.texts.map((t) => t.toLowerCase());
const kinds: Record<string, number> = {};
for (const t of texts) {
  const kind = t.startsWith("select") && t.includes("email_outbox") && t.includes("status")
    ? "select due rows"
    : t.startsWith("update `email_outbox` set `status` = 'sending'") || (t.startsWith("update `email_outbox`") && t.includes("'sending'") && t.indexOf("'sending'") < t.indexOf("where"))
      ? "claim update"
      : t.startsWith("update `email_outbox`")
        ? "done update"
        : t.startsWith("insert into `email_outbox`")
          ? "insert (caller)"
          : /^(begin|commit|start transaction)/.test(t)
            ? "begin/commit (caller)"
            : `other: ${t.slice(0, 40)}`;
  kinds[kind] = (kinds[kind] ?? 0) + 1;
}
const outboxStatements = Object.entries(kinds).filter(([k]) => !k.includes("(caller)")).reduce((n, [, v]) => n + v, 0);
console.log(`${EMAILS} e-mails, 2 instances, ${CONCURRENCY} at a time, ${FILES ? ".eml files" : "SMTP"}; load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log(`statements counted: ${counter.statements() - statementsBefore}`);
for (const [k, v] of Object.entries(kinds).sort()) console.log(`  ${k}: ${v} (${(v / EMAILS).toFixed(2)} per e-mail)`);
console.log(`outbox statements per e-mail: ${(outboxStatements / EMAILS).toFixed(2)}`);
if (!FILES) console.log(`SMTP connections opened: ${smtp.connections() - connectionsBefore}`);
console.log(`CPU per e-mail: ${((cpu.user + cpu.system) / 1000 / EMAILS).toFixed(2)} ms (user ${(cpu.user / 1000).toFixed(0)} ms, system ${(cpu.system / 1000).toFixed(0)} ms); wall ${wallMs.toFixed(0)} ms`);
if (profile) {
  const file = path.join(mailDir, "outbox.cpuprofile");
  fs.writeFileSync(file, JSON.stringify(profile));
  if (process.env.KEEP_PROFILE) fs.copyFileSync(file, process.env.KEEP_PROFILE);
  const { totalMs, byCaller, byFunction } = profileSummary(file, process.cwd(), { fromUs: 0, toUs: Number.MAX_SAFE_INTEGER });
  const share = (ms: number) => `${ms.toFixed(0)} ms (${((100 * ms) / totalMs).toFixed(1)}%)`;
  console.log(`profile: ${totalMs.toFixed(0)} ms busy; by package or folder, with the Node and native code it called:`);
  for (const [place, ms] of byCaller.slice(0, 12)) console.log(`  ${place}: ${share(ms)}`);
  console.log("top functions (self time):");
  for (const [fn, ms] of byFunction.slice(0, 15)) console.log(`  ${fn}: ${share(ms)}`);
}

for (const { outbox, transport, db } of instances) {
  await outbox.stop();
  transport.close();
  await db.destroy();
}
await counter.close();
await database.drop();
await smtp.close();
fs.rmSync(mailDir, { recursive: true, force: true });
