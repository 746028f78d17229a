import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { createMetrics } from "../../src/metrics/registry.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

/** Every series name a registry of the app exposes (a histogram's _bucket, _sum and _count too), and Prometheus' own `up`. */
async function exposedNames(): Promise<Set<string>> {
  const metrics = createMetrics();
  const names = new Set<string>(["up"]);
  for (const m of await metrics.registry.getMetricsAsJSON()) {
    names.add(m.name);
    if (String(m.type) === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(`${m.name}${suffix}`);
  }
  return names;
}

/** The metric names a PromQL text uses (not a label's quoted value such as job="ironside"). */
function usedNames(promql: string): string[] {
  return [...promql.matchAll(/(?<!["\w])((?:ironside|nodejs|process)_\w+|up(?=\{))/g)].map((m) => m[1]!);
}

describe("the dashboard and the alert rules", () => {
  it("name only metrics the app exposes", async () => {
    const names = await exposedNames();
    const dashboard = JSON.parse(read("deploy/grafana/ironside.json")) as { panels: { targets?: { expr: string }[] }[] };
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    const alerts = [...read("deploy/prometheus/alerts.yml").matchAll(/expr: (>\n(?: {10}.*\n)+|.*)/g)].map((m) => m[1]!);
    expect(exprs.length).toBeGreaterThan(20);
    expect(alerts.length).toBeGreaterThanOrEqual(8);
    for (const expr of [...exprs, ...alerts]) for (const name of usedNames(expr)) expect(names, `${name} in ${expr}`).toContain(name);
  });

  it("has a row each for traffic, opening day, money and jobs", () => {
    const dashboard = JSON.parse(read("deploy/grafana/ironside.json")) as { panels: { type: string; title: string }[] };
    expect(dashboard.panels.filter((p) => p.type === "row").map((p) => p.title)).toEqual(["Traffic", "Opening day", "Money", "Jobs"]);
  });

  it.skipIf(spawnSync("promtool", ["--version"]).status !== 0)("pass promtool's check and its rule tests (Debian's prometheus package)", () => {
    for (const args of [["check", "rules", "deploy/prometheus/alerts.yml"], ["check", "config", "deploy/prometheus/prometheus.yml"], ["test", "rules", "deploy/prometheus/alerts.test.yml"]]) {
      const run = spawnSync("promtool", args, { cwd: root, encoding: "utf8" });
      expect(run.status, `promtool ${args.join(" ")}: ${run.stdout}${run.stderr}`).toBe(0);
    }
  });
});

describe("METRICS_PORT", () => {
  it("is absent unless set, and never the site's port", () => {
    expect(loadConfig({ NODE_ENV: "test" }).metricsPort).toBeUndefined();
    expect(loadConfig({ NODE_ENV: "test", METRICS_PORT: "" }).metricsPort).toBeUndefined();
    expect(loadConfig({ NODE_ENV: "test", METRICS_PORT: "9100" }).metricsPort).toBe(9100);
    expect(() => loadConfig({ NODE_ENV: "test", PORT: "9100", METRICS_PORT: "9100" })).toThrow("METRICS_PORT must differ from PORT");
    expect(() => loadConfig({ NODE_ENV: "test", METRICS_PORT: "metrics" })).toThrow("METRICS_PORT");
  });
});
