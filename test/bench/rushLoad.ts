/**
 * The load generator of `npm run bench:rush`, a process of its own so that its CPU is not the app's nor the
 * report's: reads the families from the JSON file given as its first argument, sends each at its arrival time
 * (counted from this process's start) to its instance, and writes every family's calls to the second argument.
 * `npm run bench:rush` runs it compiled (rushGenBuild.ts); Node runs it from source too (`node rushLoad.ts`).
 * `at` of each call is milliseconds from the start.
 */
import fs from "node:fs";
import { monitorEventLoopDelay, type Histogram } from "node:perf_hooks";
import { runFamily, type FamilyPlan, type FamilyResult } from "./rushFamily.ts";

export interface LoadInput {
  instances: string[];
  stripeUrl: string;
  plans: FamilyPlan[];
}

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: rushLoad.ts <plans.json> <results.json>");
  process.exit(2);
}
const { instances, stripeUrl, plans } = JSON.parse(fs.readFileSync(input, "utf8")) as LoadInput;

/**
 * This process's own event-loop delay: a call it times includes the wait for its own turn, so the report says how
 * long that was, over the first seconds (the opening's densest arrivals) and over the whole run.
 */
export interface LoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}
const FIRST_SECONDS = 3;
const delayOf = (h: Histogram): LoopDelay => ({ p50Ms: h.percentile(50) / 1e6, p99Ms: h.percentile(99) / 1e6, maxMs: h.max / 1e6 });
const whole = monitorEventLoopDelay({ resolution: 10 });
const first = monitorEventLoopDelay({ resolution: 10 });
whole.enable();
first.enable();
let firstDelay: LoopDelay | undefined;
setTimeout(() => {
  first.disable();
  firstDelay = delayOf(first);
}, FIRST_SECONDS * 1000).unref();

const started = performance.now();
const results: FamilyResult[] = await Promise.all(
  plans.map((plan) => new Promise<FamilyResult>((resolve) => setTimeout(() => resolve(runFamily(instances[plan.instance]!, stripeUrl, plan)), plan.arriveAtMs))),
);
for (const r of results) for (const c of r.calls) c.at -= started;
whole.disable();
const loopDelay = { firstSeconds: FIRST_SECONDS, first: firstDelay ?? delayOf(first), whole: delayOf(whole) };
fs.writeFileSync(output, JSON.stringify({ seconds: (performance.now() - started) / 1000, results, loopDelay }));
