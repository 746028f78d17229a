/**
 * What one hold costs the site, counted rather than timed: N families each open /register/2 (not measured), then
 * post their holds one after another (measured): the site's CPU time per hold (from /proc), MySQL statements per
 * hold (the bench's counting proxy), Redis commands per hold (the server's `INFO commandstats`, before and after) and
 * the site's read and write system calls per hold (/proc/PID/io: a round trip is one of each).
 * Production settings on MySQL + Redis (test/bench/site.ts). Give Redis a server of its own for exact counts
 * (BENCH_REDIS_URL): commandstats count every client of the server.
 *
 *   node --import tsx test/bench/holds.ts [--holds 150]
 */
import fs from "node:fs";
import { createClient } from "redis";
import { PUBLIC_URL, proxyHeaders, startBenchSite } from "./site.ts";
import { cpuMs } from "./rushMetrics.ts";

const args = process.argv.slice(2);
const holdsArg = args.indexOf("--holds");
const HOLDS = holdsArg >= 0 ? Number(args[holdsArg + 1]) : 150;
const EVENT = 2;

type Json = Record<string, unknown>;

/** The process's read and write system calls so far (/proc/PID/io): each round trip to MySQL or Redis is a write and a read. */
function syscalls(pid: number): { reads: number; writes: number } {
  const io = fs.readFileSync(`/proc/${pid}/io`, "utf8");
  return { reads: Number(/^syscr: (\d+)/m.exec(io)?.[1]), writes: Number(/^syscw: (\d+)/m.exec(io)?.[1]) };
}

async function commandStats(info: () => Promise<unknown>): Promise<Map<string, number>> {
  const text = String(await info());
  const stats = new Map<string, number>();
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) stats.set(m[1]!, Number(m[2]));
  return stats;
}

interface Family {
  address: string;
  cookie: string;
  token: string;
  body: Json;
}

/** A family on the form's page: its cookies, token and the form's id; the hold it will post. */
async function openForm(base: string, i: number): Promise<Family> {
  const address = `198.51.${100 + Math.floor(i / 250)}.${(i % 250) + 1}`;
  const res = await fetch(`${base}/register/${EVENT}`, { headers: { ...proxyHeaders, "x-forwarded-for": address } });
  const html = await res.text();
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const token = /<meta name="csrf-token" content="([^"]*)"/.exec(html)?.[1] ?? "";
  const formSessionId = /"formSessionId":"([^"]+)"/.exec(html)?.[1] ?? `bench-${i}-${Date.now()}`;
  return {
    address,
    cookie,
    token,
    body: {
      option: "full",
      formSessionId,
      registrationData: {
        registrationType: "full", firstName: `Hold${i}`, lastName: "Bench", email: `hold${i}@example.com`, phone: "205-555-0100", grade: "10",
        gender: i % 2 ? "Male" : "Female", schoolName: "Bench High", tShirtSize: "Medium", emergencyContactName: "Pat Bench",
        emergencyContactPhone: "205-555-0101", adult: "on", agrees: "on",
      },
    },
  };
}

async function postHold(base: string, f: Family): Promise<number> {
  const res = await fetch(`${base}/api/events/${EVENT}/create-payment-intent`, {
    method: "POST",
    headers: { ...proxyHeaders, "x-forwarded-for": f.address, "content-type": "application/json", accept: "application/json", "x-csrf-token": f.token, cookie: f.cookie, origin: PUBLIC_URL },
    body: JSON.stringify(f.body),
  });
  const text = await res.text();
  if (res.status !== 200) console.error(`  hold answered ${res.status}: ${text.slice(0, 160)}`);
  return res.status;
}

const site = await startBenchSite({ embedded: false });
const redis = createClient({ url: process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379" });
await redis.connect();
try {
  // One hold first: scripts loaded, connections made, code paths compiled.
  const warm = await openForm(site.url, HOLDS);
  await postHold(site.url, warm);
  const families: Family[] = [];
  for (let i = 0; i < HOLDS; i++) families.push(await openForm(site.url, i));

  const cpuBefore = cpuMs(site.pid!);
  const callsBefore = syscalls(site.pid!);
  const statementsBefore = site.statements()!;
  const statsBefore = await commandStats(() => redis.info("commandstats"));
  let held = 0;
  for (const f of families) if ((await postHold(site.url, f)) === 200) held += 1;
  const cpuAfter = cpuMs(site.pid!);
  const callsAfter = syscalls(site.pid!);
  const statements = site.statements()! - statementsBefore;
  const statsAfter = await commandStats(() => redis.info("commandstats"));

  const perHold = (n: number) => (n / HOLDS).toFixed(2);
  console.log(`holds posted: ${HOLDS}, held: ${held}`);
  if (cpuBefore !== undefined && cpuAfter !== undefined) console.log(`site CPU per hold: ${((cpuAfter - cpuBefore) / HOLDS).toFixed(2)} ms`);
  console.log(`site system calls per hold: ${perHold(callsAfter.writes - callsBefore.writes)} writes, ${perHold(callsAfter.reads - callsBefore.reads)} reads`);
  console.log(`MySQL statements per hold: ${perHold(statements)}`);
  const commands = [...statsAfter].map(([name, calls]) => [name, calls - (statsBefore.get(name) ?? 0) - (name === "info" ? 1 : 0)] as const).filter(([, n]) => n > 0);
  console.log(`Redis commands per hold: ${perHold(commands.reduce((s, [, n]) => s + n, 0))} (${commands.map(([name, n]) => `${name} ${perHold(n)}`).join(", ")})`);
  console.log("  (commandstats count the commands a script runs too: a rate limit's new key costs a PTTL and a SET inside its EVALSHA)");
} finally {
  await redis.close();
  await site.stop();
}
