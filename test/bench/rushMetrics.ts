/**
 * What `npm run bench:rush` measures beside the answers: CPU time of each process (from /proc), MySQL's own
 * counters, the instances' "row lock" log lines (src/db/queryLog.ts), the slow log, and a CPU profile's summary.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type mysql from "mysql2/promise";

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;

/** CPU time a process has used so far in user mode and in the kernel (system), in ms; undefined when it is gone or unreadable. */
export function cpuSplitMs(pid: number): { user: number; system: number } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (in parentheses) may hold spaces: the fields count from after it.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { user: (Number(fields[11]) * 1000) / TICKS_PER_SECOND, system: (Number(fields[12]) * 1000) / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used so far, in ms; undefined when it is gone or unreadable. */
export function cpuMs(pid: number): number | undefined {
  const split = cpuSplitMs(pid);
  return split && split.user + split.system;
}

/** The database server's process on this machine (MariaDB or MySQL), if it runs here. */
export function databasePid(): number | undefined {
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = fs.readFileSync(`/proc/${entry}/comm`, "utf8").trim();
      if (comm === "mariadbd" || comm === "mysqld") return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

export const STATUS_NAMES = ["Questions", "Com_commit", "Innodb_row_lock_waits", "Innodb_row_lock_time", "Innodb_data_fsyncs"] as const;
export type Status = Record<(typeof STATUS_NAMES)[number], number>;

/** MySQL's server-wide counters (every client of the server counts, the bench's own queries too). */
export async function serverStatus(conn: mysql.Connection): Promise<Status> {
  const [rows] = await conn.query("SHOW GLOBAL STATUS WHERE Variable_name IN (?)", [STATUS_NAMES]);
  const out = Object.fromEntries(STATUS_NAMES.map((n) => [n, 0])) as Status;
  for (const r of rows as { Variable_name: string; Value: string }[]) out[r.Variable_name as keyof Status] = Number(r.Value);
  return out;
}

export interface LockLine {
  route: string;
  queries: { outside: number; inside: number };
  transactions: number;
  /** The most requests one of its locking transactions decided (batched holds); absent in logs from before batching. */
  batch?: number;
  ms: { queued: number; lockWait: number; held: number };
}

/** The "row lock" lines of an instance's log. */
export function lockLines(logFile: string): LockLine[] {
  if (!fs.existsSync(logFile)) return [];
  const out: LockLine[] = [];
  for (const line of fs.readFileSync(logFile, "utf8").split("\n")) {
    if (!line.includes('"msg":"row lock"')) continue;
    try {
      out.push(JSON.parse(line) as LockLine);
    } catch {
      // a partial last line
    }
  }
  return out;
}

/** The slow log's statements of one database since `since`, grouped by their text's start, the costliest first. */
export async function slowStatements(conn: mysql.Connection, database: string, since: Date): Promise<{ sql: string; count: number; totalMs: number; lockMs: number; maxMs: number }[]> {
  const [rows] = await conn.query(
    `SELECT LEFT(REGEXP_REPLACE(CONVERT(sql_text USING utf8mb4), '\\'[^\\']*\\'|[0-9]+', '?'), 90) AS sql_start, COUNT(*) AS n,
            SUM(TIME_TO_SEC(query_time)) * 1000 AS total_ms, SUM(TIME_TO_SEC(lock_time)) * 1000 AS lock_ms, MAX(TIME_TO_SEC(query_time)) * 1000 AS max_ms
       FROM mysql.slow_log WHERE db = ? AND start_time >= ? GROUP BY sql_start ORDER BY total_ms DESC LIMIT 15`,
    [database, since],
  );
  return (rows as Record<string, unknown>[]).map((r) => ({ sql: String(r.sql_start), count: Number(r.n), totalMs: Number(r.total_ms), lockMs: Number(r.lock_ms), maxMs: Number(r.max_ms) }));
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/**
 * A .cpuprofile's busy time within `window` (process.hrtime microseconds: V8's profile clock is the same monotonic
 * clock), by where the code lives (a package, the app's folders, Node itself) counting each sample where it ran and,
 * for Node's own and native code, also where it was called from (the nearest package or app frame up the stack).
 */
export function profileSummary(
  file: string,
  root: string,
  window: { fromUs: number; toUs: number },
): { totalMs: number; byPlace: [string, number][]; byCaller: [string, number][]; byFunction: [string, number][] } {
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number };
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const place = (n: ProfileNode) => {
    const { url, functionName: fn } = n.callFrame;
    if (!url) return ["(garbage collector)", "(idle)", "(program)"].includes(fn) ? fn : "(native)";
    const rel = url.startsWith("file://") ? path.relative(root, new URL(url).pathname) : url;
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(rel);
    if (pkg) return pkg[1]!;
    if (rel.startsWith("node:")) return "node:" + rel.slice(5).split("/")[0];
    return rel.split("/").slice(0, 2).join("/");
  };
  const isOwn = (p: string) => !p.startsWith("(") && !p.startsWith("node:");
  const caller = (id: number) => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const p = place(nodes.get(at)!);
      if (isOwn(p)) return p;
    }
    return place(nodes.get(id)!);
  };
  const byPlace = new Map<string, number>();
  const byCaller = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let totalMs = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < window.fromUs || at > window.toUs) return;
    const n = nodes.get(id)!;
    const p = place(n);
    if (p === "(idle)") return;
    const ms = delta / 1000;
    totalMs += ms;
    byPlace.set(p, (byPlace.get(p) ?? 0) + ms);
    const c = caller(id);
    byCaller.set(c, (byCaller.get(c) ?? 0) + ms);
    const f = `${n.callFrame.functionName || "(anonymous)"} ${p}:${n.callFrame.lineNumber + 1}`;
    byFunction.set(f, (byFunction.get(f) ?? 0) + ms);
  });
  const top = (m: Map<string, number>, k: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k);
  return { totalMs, byPlace: top(byPlace, 12), byCaller: top(byCaller, 12), byFunction: top(byFunction, 12) };
}
