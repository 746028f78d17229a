import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fileTimes, slowestReport } from "../support/slowestFiles.ts";

const result = (name: string, startTime: number, endTime: number, status = "passed") => ({ name: `/repo/${name}`, startTime, endTime, status });

describe("the slowest test files of a run (test/support/slowestFiles.ts)", () => {
  it("adds up a file's runs (SQLite and MySQL), slowest first, and marks a failed file", () => {
    const files = fileTimes({ testResults: [result("a.test.ts", 0, 2000), result("b.test.ts", 0, 5000, "failed"), result("a.test.ts", 10_000, 14_000)] }, "/repo");
    expect(files).toEqual([
      { file: "a.test.ts", runs: [2, 4], seconds: 6, failed: false },
      { file: "b.test.ts", runs: [5], seconds: 5, failed: true },
    ]);
  });

  it("prints each report's slowest files, and says so when there is no report", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slowest-"));
    try {
      expect(slowestReport(dir, 12)).toMatch(/^No vitest report in /);
      const cwd = process.cwd();
      const results = Array.from({ length: 14 }, (_, i) => ({ name: path.join(cwd, `test/e2e/f${i}.e2e.ts`), startTime: 0, endTime: (i + 1) * 1000, status: "passed" }));
      fs.writeFileSync(path.join(dir, "e2e-1.json"), JSON.stringify({ testResults: results }));
      const text = slowestReport(dir, 12);
      expect(text).toContain("The 12 slowest of 14 files in e2e-1.json");
      expect(text).toContain("14.0 s  test/e2e/f13.e2e.ts");
      expect(text).toContain("3.0 s  test/e2e/f2.e2e.ts");
      expect(text).not.toContain("test/e2e/f1.e2e.ts");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
