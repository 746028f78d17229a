import type { Request, Response } from "express";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Db } from "../../src/db/knex.ts";
import { EVENTS_VERSION_POLL_MS, watchEventsVersion } from "../../src/events/version.ts";

/**
 * Without Redis an instance reads the events' version at most once per EVENTS_VERSION_POLL_MS, one read shared by
 * every request that arrives while it is under way; a newer version empties what the instance keeps.
 */
afterEach(() => {
  vi.useRealTimers();
});

/** A database that answers the version read when told to, counting the reads. */
function versionDb() {
  const state = { version: 1, reads: 0, answer: [] as (() => void)[] };
  const db = (() => ({
    where: () => ({
      first: () => {
        state.reads += 1;
        return new Promise((resolve) => state.answer.push(() => resolve({ version: state.version })));
      },
    }),
  })) as unknown as Db;
  const answerAll = () => state.answer.splice(0).forEach((answer) => answer());
  return { db, state, answerAll };
}

/** Runs the check for one request; resolves once it called next(). */
function request(check: ReturnType<typeof watchEventsVersion>["check"]): { passed: () => boolean; done: Promise<void> } {
  let passed = false;
  const done = new Promise<void>((resolve) => {
    void check({} as Request, {} as Response, () => {
      passed = true;
      resolve();
    });
  });
  return { passed: () => passed, done };
}

describe("the events' version without Redis", () => {
  it("one read for every request that arrives while it is under way, none within the interval after it, a new one after it", async () => {
    vi.useFakeTimers();
    const { db, state, answerAll } = versionDb();
    const stale = vi.fn();
    const watch = watchEventsVersion({ db, stale });
    expect(watch.live()).toBe(false);

    const first = [request(watch.check), request(watch.check), request(watch.check)];
    expect(state.reads).toBe(1);
    expect(first.some((r) => r.passed())).toBe(false);
    answerAll();
    await Promise.all(first.map((r) => r.done));

    vi.advanceTimersByTime(EVENTS_VERSION_POLL_MS - 1);
    await request(watch.check).done;
    expect(state.reads).toBe(1);

    state.version = 2;
    vi.advanceTimersByTime(1);
    const after = request(watch.check);
    expect(state.reads).toBe(2);
    expect(after.passed()).toBe(false);
    answerAll();
    await after.done;
    expect(stale).toHaveBeenCalledTimes(1);
  });

  it("a version no newer than the one seen empties nothing", async () => {
    vi.useFakeTimers();
    const { db, answerAll } = versionDb();
    const stale = vi.fn();
    const watch = watchEventsVersion({ db, stale });
    const first = request(watch.check);
    answerAll();
    await first.done;
    vi.advanceTimersByTime(EVENTS_VERSION_POLL_MS);
    const again = request(watch.check);
    answerAll();
    await again.done;
    expect(stale).not.toHaveBeenCalled();
  });

  it("a database that cannot be read lets the request go on", async () => {
    const db = (() => ({ where: () => ({ first: () => Promise.reject(new Error("down")) }) })) as unknown as Db;
    await request(watchEventsVersion({ db, stale: () => undefined }).check).done;
  });
});
