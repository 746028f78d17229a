/**
 * The load generator of `npm run bench:rush`, a process of its own so that its CPU is not the app's nor the
 * report's: reads the families from the JSON file given as its first argument, sends each at its arrival time
 * (counted from this process's start) to its instance, and writes every family's calls to the second argument.
 * `npm run bench:rush` runs it compiled (rushGenBuild.ts); Node runs it from source too (`node rushLoad.ts`).
 * `at` of each call is milliseconds from the start.
 */
import fs from "node:fs";
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

const started = performance.now();
const results: FamilyResult[] = await Promise.all(
  plans.map((plan) => new Promise<FamilyResult>((resolve) => setTimeout(() => resolve(runFamily(instances[plan.instance]!, stripeUrl, plan)), plan.arriveAtMs))),
);
for (const r of results) for (const c of r.calls) c.at -= started;
fs.writeFileSync(output, JSON.stringify({ seconds: (performance.now() - started) / 1000, results }));
