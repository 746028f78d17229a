/**
 * Where a test run's time went: `node --import tsx test/support/slowestFiles.ts <dir> [count]` reads the vitest JSON
 * reports `npm test` wrote to TEST_REPORT_DIR (checks.json: unit and integration, on SQLite and MySQL; e2e-<n>.json:
 * a lane of journeys) and prints each half's slowest files with their seconds. `.ci/run` prints it at the end of
 * every run, passed or failed, so each CI log says which files took the time.
 *
 * A file's seconds run from its first test's start to its last test's end (vitest's JSON report has no more: the
 * file's import and its beforeAll before the first test are not counted). A file run on SQLite and on MySQL is one
 * line with both runs added up, each shown.
 */
import fs from "node:fs";
import path from "node:path";

interface FileResult {
  name: string;
  startTime: number;
  endTime: number;
  status: string;
}

export interface FileTime {
  file: string;
  /** Each run of the file (two for an integration file run on SQLite and on MySQL), in seconds. */
  runs: number[];
  seconds: number;
  failed: boolean;
}

/** The files of one report, slowest first, their runs added up. */
export function fileTimes(report: { testResults?: FileResult[] }, root = process.cwd()): FileTime[] {
  const byFile = new Map<string, FileTime>();
  for (const r of report.testResults ?? []) {
    const file = path.relative(root, r.name);
    const entry = byFile.get(file) ?? { file, runs: [], seconds: 0, failed: false };
    const seconds = Math.max(0, r.endTime - r.startTime) / 1000;
    entry.runs.push(seconds);
    entry.seconds += seconds;
    entry.failed ||= r.status === "failed";
    byFile.set(file, entry);
  }
  return [...byFile.values()].sort((a, b) => b.seconds - a.seconds);
}

/** The report's span: from the first file's first test to the last file's last test, in seconds. */
function spanSeconds(report: { testResults?: FileResult[] }): number {
  const results = report.testResults ?? [];
  if (!results.length) return 0;
  return (Math.max(...results.map((r) => r.endTime)) - Math.min(...results.map((r) => r.startTime))) / 1000;
}

export function slowestReport(dir: string, count: number): string {
  const reports = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort() : [];
  if (!reports.length) return `No vitest report in ${dir}: the tests stopped before writing one.\n`;
  let out = "";
  for (const name of reports) {
    let report: { testResults?: FileResult[] };
    try {
      report = JSON.parse(fs.readFileSync(path.join(dir, name), "utf8")) as typeof report;
    } catch (err) {
      out += `\n${name}: unreadable (${(err as Error).message})\n`;
      continue;
    }
    const files = fileTimes(report);
    const total = files.reduce((sum, f) => sum + f.seconds, 0);
    out += `\nThe ${Math.min(count, files.length)} slowest of ${files.length} files in ${name} (files' seconds add up to ${total.toFixed(0)} s; first test to last: ${spanSeconds(report).toFixed(0)} s):\n`;
    for (const f of files.slice(0, count)) {
      const runs = f.runs.length > 1 ? ` (${f.runs.map((s) => s.toFixed(1)).join(" + ")})` : "";
      out += `${f.seconds.toFixed(1).padStart(8)} s  ${f.file}${runs}${f.failed ? "  FAILED" : ""}\n`;
    }
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [dir, count] = process.argv.slice(2);
  if (!dir) {
    process.stderr.write("usage: node --import tsx test/support/slowestFiles.ts <report dir> [count]\n");
    process.exit(2);
  }
  process.stdout.write(slowestReport(dir, Number(count) || 12));
}
