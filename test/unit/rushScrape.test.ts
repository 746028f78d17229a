import { describe, expect, it } from "vitest";
import { agree, holdMetrics } from "../bench/rushScrape.ts";

const instance = (held: number, soldOut: number, sumSeconds: number, buckets: [string, number][]) =>
  [
    "# HELP ironside_holds_total Registration holds answered",
    "# TYPE ironside_holds_total counter",
    `ironside_holds_total{outcome="held"} ${held}`,
    `ironside_holds_total{outcome="sold_out"} ${soldOut}`,
    ...buckets.map(([le, n]) => `ironside_hold_duration_seconds_bucket{le="${le}",outcome="held"} ${n}`),
    `ironside_hold_duration_seconds_sum{outcome="held"} ${sumSeconds}`,
    `ironside_hold_duration_seconds_count{outcome="held"} ${held + soldOut}`,
  ].join("\n");

describe("the bench's hold figures from /metrics", () => {
  it("adds the instances' counters and histograms", () => {
    const m = holdMetrics([
      instance(90, 10, 50, [["0.5", 60], ["1", 99], ["+Inf", 100]]),
      instance(45, 5, 25, [["0.5", 30], ["1", 49], ["+Inf", 50]]),
    ]);
    expect(m.byOutcome).toEqual({ held: 135, sold_out: 15 });
    expect(m.count).toBe(150);
    expect(m.meanMs).toBeCloseTo(500);
    // 148 of 150 within 1 s: short of 99% (148.5), so the 99th percentile lies past the last finite bucket.
    expect(m.p99BucketMs).toBe(Infinity);
  });

  it("finds the bucket of the 99th percentile", () => {
    const m = holdMetrics([instance(100, 0, 20, [["0.1", 50], ["0.25", 99], ["0.5", 100], ["+Inf", 100]])]);
    expect(m.p99BucketMs).toBe(250);
  });

  it("says whether two figures agree within 10%", () => {
    expect(agree(100, 91)).toBe(true);
    expect(agree(100, 89)).toBe(false);
  });
});
