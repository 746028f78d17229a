/**
 * RUSH_LOCK_WAITS=1 for `npm run bench:rush`: MariaDB's row-lock waits sampled every 50 ms during the rush, on a
 * connection of their own, summed up by what was waited for (table, index, mode) and by the waiting and the blocking
 * statement. A sample counts each waiter once, so a wait of a second is about 20 samples: the figures say where the
 * queues were, not how many waits there were (MySQL's own counters give those). MariaDB 10.x and MySQL 5.7 keep
 * `information_schema.innodb_lock_waits`; MySQL 8 moved it to performance_schema (the sampler then reports that).
 */
import mysql from "mysql2/promise";

export interface LockWaitSummary {
  samples: number;
  withWaiter: number;
  byLock: [string, number][];
  byStatements: [string, number][];
  error?: string;
}

const QUERY = `select l.lock_table as lock_table, l.lock_index as lock_index, l.lock_mode as lock_mode,
    left(r.trx_query, 80) as waiting, left(b.trx_query, 80) as blocking
  from information_schema.innodb_lock_waits w
  join information_schema.innodb_trx r on r.trx_id = w.requesting_trx_id
  join information_schema.innodb_trx b on b.trx_id = w.blocking_trx_id
  join information_schema.innodb_locks l on l.lock_id = w.requested_lock_id`;

/** Starts sampling; `stop()` ends it and answers the summary (the costliest eight of each kind). */
export async function sampleLockWaits(uri: string, everyMs = 50): Promise<{ stop(): Promise<LockWaitSummary> }> {
  const conn = await mysql.createConnection({ uri });
  const byLock = new Map<string, number>();
  const byStatements = new Map<string, number>();
  let samples = 0;
  let withWaiter = 0;
  let error: string | undefined;
  let stopped = false;
  const loop = (async () => {
    while (!stopped && !error) {
      try {
        const [rows] = (await conn.query(QUERY)) as unknown as [Record<string, string | null>[]];
        samples += 1;
        if (rows.length) withWaiter += 1;
        for (const r of rows) {
          const lock = `${String(r.lock_table).replace(/^`[^`]*`\./, "")} ${r.lock_index ?? "-"} ${r.lock_mode}`;
          byLock.set(lock, (byLock.get(lock) ?? 0) + 1);
          const pair = `waiting: ${r.waiting ?? "(between statements)"} | blocking: ${r.blocking ?? "(between statements)"}`;
          byStatements.set(pair, (byStatements.get(pair) ?? 0) + 1);
        }
      } catch (err) {
        error = (err as Error).message;
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 8);
  return {
    async stop() {
      stopped = true;
      await loop;
      await conn.end();
      return { samples, withWaiter, byLock: top(byLock), byStatements: top(byStatements), error };
    },
  };
}
