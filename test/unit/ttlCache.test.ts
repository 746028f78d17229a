import { describe, expect, it, vi } from "vitest";
import { createTtlCache, deepFreeze } from "../../src/cache/ttl.ts";

const later = <T>(value: T, ms = 20) => new Promise<T>((r) => setTimeout(() => r(value), ms));

describe("TTL cache", () => {
  it("keeps a value for the TTL, then loads again", async () => {
    let now = 0;
    const cache = createTtlCache({ ttlMs: 5_000, now: () => now });
    const load = vi.fn(async () => `v${load.mock.calls.length}`);
    expect(await cache.get("k", load)).toBe("v1");
    now = 4_999;
    expect(await cache.get("k", load)).toBe("v1");
    now = 5_000;
    expect(await cache.get("k", load)).toBe("v2");
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("shares one load between concurrent reads", async () => {
    const cache = createTtlCache({ ttlMs: 1000 });
    const load = vi.fn(() => later(7));
    expect(await Promise.all([cache.get("k", load), cache.get("k", load)])).toEqual([7, 7]);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("loads again at once after invalidate", async () => {
    const cache = createTtlCache({ ttlMs: 60_000 });
    let stored = "old";
    expect(await cache.get("k", async () => stored)).toBe("old");
    stored = "new";
    expect(await cache.get("k", async () => stored)).toBe("old");
    cache.invalidate();
    expect(await cache.get("k", async () => stored)).toBe("new");
  });

  it("does not keep what a load read before an invalidation, nor lets later reads join it", async () => {
    const cache = createTtlCache({ ttlMs: 60_000 });
    const before = cache.get("k", () => later("read before the write"));
    cache.invalidate();
    const after = cache.get("k", () => later("read after the write"));
    expect(await before).toBe("read before the write");
    expect(await after).toBe("read after the write");
    expect(await cache.get("k", async () => "not called")).toBe("read after the write");
  });

  it("does not keep failures, and with onStale serves the last good value when a refresh fails", async () => {
    let now = 0;
    const onStale = vi.fn();
    const cache = createTtlCache({ ttlMs: 10, now: () => now, onStale });
    await expect(cache.get("k", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.get("k", async () => "good")).toBe("good");
    now = 50;
    expect(await cache.get("k", () => Promise.reject(new Error("down again")))).toBe("good");
    expect(onStale).toHaveBeenCalledWith("k", expect.any(Error));
  });

  it("without onStale, a failed refresh fails", async () => {
    let now = 0;
    const cache = createTtlCache({ ttlMs: 10, now: () => now });
    await cache.get("k", async () => "good");
    now = 50;
    await expect(cache.get("k", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
  });

  it("keeps at most maxEntries keys, dropping the oldest", async () => {
    const cache = createTtlCache({ ttlMs: 60_000, maxEntries: 2 });
    for (const k of ["a", "b", "c"]) await cache.get(k, async () => k);
    const load = vi.fn(async () => "again");
    expect(await cache.get("c", load)).toBe("c");
    expect(await cache.get("b", load)).toBe("b");
    expect(await cache.get("a", load)).toBe("again");
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("freezes what it keeps, deeply", async () => {
    const cache = createTtlCache({ ttlMs: 60_000 });
    const value = await cache.get("k", async () => ({ list: [{ price: 1 }] }));
    expect(() => (value.list[0]!.price = 2)).toThrow(TypeError);
    expect(() => value.list.push({ price: 3 })).toThrow(TypeError);
    expect(deepFreeze({ a: { b: 1 } }).a).toSatisfy(Object.isFrozen);
  });
});
