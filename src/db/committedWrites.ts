import type { Db } from "./knex.ts";

/**
 * Tells in-process caches that this process changed a table, once the change is committed: a write is noted on
 * its connection, and the listeners run when that connection goes back to the pool, which knex does after the
 * statement (outside a transaction) or after COMMIT / ROLLBACK (inside one: a rolled-back write invalidates too,
 * which costs one reload and nothing else). So no reader can cache the old rows again after the listener ran,
 * and no listener runs while the transaction that wrote is still open. Other processes' writes are not seen:
 * their caches expire instead.
 */
export function onCommittedWrites(db: Db, tables: readonly string[], listener: () => void): void {
  watchOf(db).listeners.push({ tables: new Set(tables), listener });
}

/** The table an INSERT, REPLACE, UPDATE or DELETE statement writes; null for anything else. */
export function writtenTable(sql: string): string | null {
  const m = /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|replace\s+into|update|delete\s+from)\s+[`"]?(\w+)[`"]?/i.exec(sql);
  return m?.[1]?.toLowerCase() ?? null;
}

interface Watch {
  listeners: { tables: Set<string>; listener: () => void }[];
  /** Tables written on each connection (knex's __knexUid) since it was taken from the pool. */
  written: Map<string, Set<string>>;
}

const watches = new WeakMap<Db, Watch>();

interface PooledConnection {
  __knexUid?: string;
}
interface Pool {
  on(event: "release", listener: (connection: PooledConnection) => void): void;
  on(event: "destroySuccess", listener: (eventId: number, connection: PooledConnection) => void): void;
}

function watchOf(db: Db): Watch {
  const existing = watches.get(db);
  if (existing) return existing;
  const watch: Watch = { listeners: [], written: new Map() };
  watches.set(db, watch);

  db.on("query", (q: { sql?: string; __knexUid?: string }) => {
    const table = q.__knexUid && q.sql ? writtenTable(q.sql) : null;
    if (!table) return;
    const tables = watch.written.get(q.__knexUid!) ?? new Set<string>();
    tables.add(table);
    watch.written.set(q.__knexUid!, tables);
  });
  const settled = (connection: PooledConnection) => {
    const uid = connection.__knexUid;
    const tables = uid ? watch.written.get(uid) : undefined;
    if (!tables) return;
    watch.written.delete(uid!);
    for (const { tables: watched, listener } of watch.listeners) {
      if ([...tables].some((t) => watched.has(t))) listener();
    }
  };
  const pool = (db.client as { pool?: Pool }).pool;
  if (!pool) throw new Error("onCommittedWrites needs a knex instance with its own connection pool");
  pool.on("release", settled);
  // A connection that broke is destroyed instead of released; what it wrote may or may not have committed.
  pool.on("destroySuccess", (_eventId, connection) => settled(connection));
  return watch;
}
