/**
 * The families of `npm run bench:rush`: the same seed gives the same families (the bench and
 * test/bench/rushGenMeasure.ts draw them here).
 */
import type { FamilyPlan } from "./rushFamily.ts";

/** The four seeded events, 200 places each. */
export const EVENT_IDS = [1, 2, 3, 4];
/** The mix: shares of families (each drawn on its own). */
export const MIX = { team: 0.2, pay: 0.65, doubleSubmit: 0.1, code: 0.1 } as const;

/** mulberry32: the same seed gives the same families. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function familyPlans({ families, seconds, seed, instances }: { families: number; seconds: number; seed: number; instances: number }): FamilyPlan[] {
  const r = random(seed);
  return Array.from({ length: families }, (_, i) => {
    const id = i + 1;
    const team = r() < MIX.team;
    return {
      id,
      instance: i % instances,
      address: `10.${(id >> 16) & 255}.${(id >> 8) & 255}.${id & 255}`,
      // Registration opening: arrivals crowd the first seconds (density falling over the window).
      arriveAtMs: Math.round(seconds * 1000 * r() ** 2),
      eventId: EVENT_IDS[Math.floor(r() * EVENT_IDS.length)]!,
      kind: team ? "team" : "individual",
      athletes: team ? 5 + Math.floor(r() * 8) : 1,
      packagePick: Math.floor(r() * 3),
      ending: r() < MIX.pay ? "pay" : "abandon",
      doubleSubmit: r() < MIX.doubleSubmit,
      useCode: r() < MIX.code,
    };
  });
}
