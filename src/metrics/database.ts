import type { Knex } from "knex";
import type { Gauge } from "prom-client";
import { collectOnScrape, type Metrics } from "./registry.ts";

interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
  max: number;
}

interface QueryEvent {
  sql?: string;
  __knexQueryUid?: string;
}

/** Statements running at once in one instance stay far below this (the pool lends 30 connections). */
const MAX_PENDING = 10_000;

const STATEMENT = /^\s*(select|insert|update|delete)\b/i;

/** select, insert, update, delete or other (transaction control, DDL, pragmas): a small fixed set of labels. */
export function statementKind(sql: string | undefined): string {
  return STATEMENT.exec(sql ?? "")?.[1]?.toLowerCase() ?? "other";
}

/**
 * The pool's figures (knex's tarn pool), read at each scrape, and every statement's duration from knex's query,
 * query-response and query-error events (matched by the query's uid).
 */
export function watchDatabase(db: Knex, metrics: Metrics): void {
  const { poolSize, poolUsed, poolWaiting, poolMax, queryDuration } = metrics.database;
  const fromPool = (read: (p: TarnPool) => number) => (g: Gauge) => {
    const p = (db.client as { pool?: TarnPool }).pool;
    if (p) g.set(read(p));
  };
  collectOnScrape(poolSize, fromPool((p) => p.numUsed() + p.numFree()));
  collectOnScrape(poolUsed, fromPool((p) => p.numUsed()));
  collectOnScrape(poolWaiting, fromPool((p) => p.numPendingAcquires()));
  collectOnScrape(poolMax, fromPool((p) => p.max));

  const started = new Map<string, { at: bigint; statement: string }>();
  const done = (q: QueryEvent, result: "ok" | "error") => {
    const uid = q.__knexQueryUid;
    const start = uid ? started.get(uid) : undefined;
    if (!start) return;
    started.delete(uid!);
    queryDuration.observe({ statement: start.statement, result }, Number(process.hrtime.bigint() - start.at) / 1e9);
  };
  db.on("query", (q: QueryEvent) => {
    if (!q.__knexQueryUid) return;
    // A statement whose answer is never told (a stream cut short) must not keep its entry for ever.
    if (started.size >= MAX_PENDING) started.clear();
    started.set(q.__knexQueryUid, { at: process.hrtime.bigint(), statement: statementKind(q.sql) });
  });
  db.on("query-response", (_response: unknown, q: QueryEvent) => done(q, "ok"));
  db.on("query-error", (_err: unknown, q: QueryEvent) => done(q, "error"));
}
