/**
 * The bench's hold figures as the instances' own Prometheus metrics give them (`/metrics` on each METRICS_PORT,
 * src/metrics/): what an operator's dashboard would have shown during the run, set beside what the generator measured.
 */

/** One sample line of Prometheus' text format: `name{a="x",b="y"} value`. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

export interface HoldMetrics {
  /** Holds answered, by outcome (held, sold_out, refused), summed over the instances. */
  byOutcome: Record<string, number>;
  count: number;
  /** Mean time to answer a hold, from the histogram's sum and count. */
  meanMs: number;
  /** The histogram's bucket (upper bound, ms) that holds the 99th percentile: Infinity past the last bucket. */
  p99BucketMs: number;
}

/** The hold counter and histogram of several instances' scrapes, added together. */
export function holdMetrics(scrapes: string[]): HoldMetrics {
  const samples = scrapes.flatMap(parseSamples);
  const byOutcome: Record<string, number> = {};
  for (const s of samples.filter((s) => s.name === "ironside_holds_total")) byOutcome[s.labels.outcome ?? "?"] = (byOutcome[s.labels.outcome ?? "?"] ?? 0) + s.value;
  const sum = samples.filter((s) => s.name === "ironside_hold_duration_seconds_sum").reduce((t, s) => t + s.value, 0);
  const count = samples.filter((s) => s.name === "ironside_hold_duration_seconds_count").reduce((t, s) => t + s.value, 0);
  // Buckets are cumulative per outcome and instance: add them up per bound.
  const buckets = new Map<number, number>();
  for (const s of samples.filter((s) => s.name === "ironside_hold_duration_seconds_bucket")) {
    const le = s.labels.le === "+Inf" ? Infinity : Number(s.labels.le);
    buckets.set(le, (buckets.get(le) ?? 0) + s.value);
  }
  const p99 = [...buckets].sort(([a], [b]) => a - b).find(([, n]) => n >= 0.99 * count)?.[0] ?? Infinity;
  return { byOutcome, count, meanMs: count ? (sum / count) * 1000 : 0, p99BucketMs: p99 === Infinity ? Infinity : p99 * 1000 };
}

/** Whether two figures agree within `share` of the larger. */
export const agree = (a: number, b: number, share = 0.1) => Math.abs(a - b) <= share * Math.max(a, b, 1);
