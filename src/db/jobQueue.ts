import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type { Db } from "./knex.ts";
import type { Logger } from "../logger.ts";
import { outsideRequest } from "./queryLog.ts";

/**
 * A table of jobs worked by every app instance at once (the e-mail outbox, the Shopify write-backs).
 * The table has `id`, `status` (pending, sending, sent, failed), `attempts`, `next_attempt_at`,
 * `claimed_at`, `last_error` and `sent_at`. A job is claimed by one conditional UPDATE that also counts
 * the attempt, so two instances never run one job; the claimer's attempt number is its ticket for
 * writing the outcome, so a worker whose claim went stale (and was taken over) cannot overwrite it.
 * A pass looks for due jobs; jobs this process just committed can be handed over instead (`committed`): wake()
 * then claims them by their ids, as written, with no look for due jobs (the timer's pass finds everything else),
 * together: one UPDATE claims them all and one marks all that were done (such a table has a `claim_token` column).
 */
export interface JobRow {
  id: number;
  attempts: number;
  [column: string]: unknown;
}

/** Jobs this process committed since the last call, as written (attempts 0); `unlisted`: others were, ids unknown. */
export interface CommittedJobs {
  rows: JobRow[];
  unlisted: boolean;
}

export interface JobQueue {
  /** Runs what is due now (also runs on a timer). Resolves with the number of jobs done in this pass. */
  drain(): Promise<number>;
  /** Runs the jobs handed over as committed soon, or (none handed over) a pass; without waiting for it. */
  wake(): void;
  start(): void;
  stop(): Promise<void>;
}

export interface JobQueueOptions {
  db: Db;
  logger: Logger;
  table: string;
  /** Names the queue in logs, e.g. "email". */
  name: string;
  /** Does one job; throws to have it retried later. Resolves with extra columns to store on the done row. */
  run(row: JobRow): Promise<Record<string, unknown> | void>;
  /** After a failed attempt, with `final` true when the job gives up (e.g. to mark what it was about). */
  onFailure?(row: JobRow, error: string, final: boolean): Promise<void>;
  /** Context for log lines about a job (never a full e-mail address or a token). */
  describe?: (row: JobRow) => Record<string, unknown>;
  /** The jobs this process just committed, to be claimed by id rather than looked for (the outbox's e-mails). */
  committed?: () => CommittedJobs;
  /** Columns a handed-over job's row must still hold to be claimed (ids of a multi-row INSERT are inferred). */
  sameJob?: (row: JobRow) => Record<string, unknown>;
  /** The column holding the job's state (pending, sending, sent, failed); `status` unless the table uses that for its own. */
  statusColumn?: string;
  maxAttempts?: number;
  intervalMs?: number;
  batchSize?: number;
}

export const MAX_ATTEMPTS = 8;

/** 30 s, 1 min, 2 min, ... capped at one hour. */
export function backoffMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

/** A claim older than this belongs to a worker that died mid-job; the job is tried again. */
export const STALE_CLAIM_MS = 5 * 60_000;

export function createJobQueue(opts: JobQueueOptions): JobQueue {
  const { db, logger, table, name } = opts;
  const maxAttempts = opts.maxAttempts ?? MAX_ATTEMPTS;
  const intervalMs = opts.intervalMs ?? 15_000;
  const describe = opts.describe ?? ((row: JobRow) => ({ jobId: row.id }));
  const status = opts.statusColumn ?? "status";
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  /** What a drain asked for while one ran: the handed-over jobs only, or a whole pass. */
  let again: "handed" | "pass" | undefined;
  const handed: JobRow[] = [];

  /** Due now: pending and past its backoff, or claimed by a worker that went silent. */
  function due(now: Date) {
    const staleBefore = new Date(now.getTime() - STALE_CLAIM_MS);
    return db(table).where((w) => {
      w
        .where((q) => { q.where(status, "pending").andWhere("next_attempt_at", "<=", now); })
        .orWhere((q) => { q.where(status, "sending").andWhere("claimed_at", "<", staleBefore); });
    });
  }

  /** One atomic UPDATE: the job is ours only if it was still due and nobody counted an attempt since we read it. */
  async function claim(row: JobRow, same: Record<string, unknown> = {}): Promise<number | null> {
    const attempt = row.attempts + 1;
    const updated = await due(new Date())
      .andWhere({ ...same, id: row.id, attempts: row.attempts })
      .update({ [status]: "sending", claimed_at: new Date(), attempts: attempt });
    return updated === 1 ? attempt : null;
  }

  const ours = (row: JobRow, attempt: number) => db(table).where({ id: row.id, [status]: "sending", attempts: attempt });

  /** Runs the job if this worker claims it; null when it was not claimed (another took it, or it is not that row). */
  async function runOne(row: JobRow, same?: Record<string, unknown>): Promise<boolean | null> {
    const attempt = await claim(row, same);
    if (attempt === null) return null;
    const claimed = { ...row, attempts: attempt };
    try {
      const extra = (await opts.run(claimed)) ?? {};
      await ours(row, attempt).update({ ...extra, ...doneColumns() });
      return true;
    } catch (err) {
      await recordFailure(claimed, err);
      return false;
    }
  }

  const doneColumns = () => ({ [status]: "sent", sent_at: new Date(), last_error: null, claimed_at: null });

  async function recordFailure(claimed: JobRow, err: unknown): Promise<void> {
    const attempt = claimed.attempts;
    const message = String((err as Error).message ?? err).slice(0, 2000);
    const final = attempt >= maxAttempts;
    const recorded = await ours(claimed, attempt).update({
      [status]: final ? "failed" : "pending",
      last_error: message,
      next_attempt_at: new Date(Date.now() + backoffMs(attempt)),
      claimed_at: null,
    });
    if (recorded === 1) await opts.onFailure?.(claimed, message, final);
    const context = { queue: name, ...describe(claimed), attempts: attempt, err: message };
    if (final) logger.error(context, `${name} job failed for good after ${attempt} attempts; an operator must act`);
    else logger.warn(context, `${name} job failed; retrying later`);
  }

  /**
   * Handed-over jobs (attempts 0) claimed by one UPDATE that writes its own token. When it took fewer than all (another
   * instance took one first, or an inferred id is not that job's row), the rows carrying the token are the claimed ones.
   */
  async function claimTogether(rows: JobRow[]): Promise<JobRow[]> {
    const token = randomUUID();
    const updated = await due(new Date())
      .andWhere("attempts", 0)
      .andWhere((w) => {
        for (const row of rows) w.orWhere({ ...opts.sameJob?.(row), id: row.id });
      })
      .update({ [status]: "sending", claimed_at: new Date(), attempts: 1, claim_token: token });
    if (updated === rows.length) return rows.map((row) => ({ ...row, attempts: 1 }));
    if (updated === 0) return [];
    const mine = (await db(table).where({ claim_token: token })) as JobRow[];
    // Two handed-over jobs may name one id (inferred ids): the row claimed is the one whose columns it holds, once.
    const taken = new Set<number>();
    const holds = (row: JobRow) => !taken.has(row.id) && mine.some((m) => Number(m.id) === row.id && Object.entries(opts.sameJob?.(row) ?? {}).every(([k, v]) => String(m[k]) === String(v)));
    return rows.filter((row) => holds(row) && taken.add(row.id)).map((row) => ({ ...row, attempts: 1 }));
  }

  /** Marks the claimed jobs done in one UPDATE, each with its own extra columns (a CASE on the id per column). */
  async function markDone(done: { row: JobRow; extra: Record<string, unknown> }[]): Promise<void> {
    if (done.length === 0) return;
    const columns: Record<string, unknown> = doneColumns();
    for (const column of new Set(done.flatMap(({ extra }) => Object.keys(extra)))) {
      const set = done.filter(({ extra }) => column in extra);
      const cases = set.map(() => "when ? then ?").join(" ");
      columns[column] = db.raw(`case ?? ${cases} else ?? end`, ["id", ...set.flatMap(({ row, extra }) => [row.id, extra[column]]), column] as Knex.Value[]);
    }
    await db(table).where({ [status]: "sending", attempts: 1 }).whereIn("id", done.map(({ row }) => row.id)).update(columns);
  }

  /** Runs handed-over jobs claimed together; `missed`: some were not claimed, so a pass follows. */
  async function runTogether(rows: JobRow[]): Promise<{ done: number; missed: boolean }> {
    const claimed = await claimTogether(rows);
    const done: { row: JobRow; extra: Record<string, unknown> }[] = [];
    for (const row of claimed) {
      try {
        done.push({ row, extra: (await opts.run(row)) ?? {} });
      } catch (err) {
        await recordFailure(row, err);
      }
    }
    await markDone(done);
    return { done: done.length, missed: claimed.length < rows.length };
  }

  /** Takes what was handed over since; true when a pass is needed for jobs whose ids were not given. */
  function takeHanded(): boolean {
    const { rows, unlisted } = opts.committed?.() ?? { rows: [], unlisted: false };
    handed.push(...rows);
    return unlisted;
  }

  /** Runs the handed-over jobs, a batch at a time; `missed`: one was not claimed (most often another instance took it), so a pass follows. */
  async function runHanded(): Promise<{ done: number; missed: boolean }> {
    let done = 0;
    let missed = false;
    while (handed.length > 0) {
      const ran = await runTogether(handed.splice(0, opts.batchSize ?? 20));
      done += ran.done;
      missed ||= ran.missed;
    }
    return { done, missed };
  }

  async function pass(): Promise<number> {
    const rows = (await due(new Date()).orderBy("id").limit(opts.batchSize ?? 20)) as JobRow[];
    let done = 0;
    for (const row of rows) if (await runOne({ ...row, id: Number(row.id), attempts: Number(row.attempts) })) done += 1;
    return done;
  }

  function drain(scope: "handed" | "pass" = "pass"): Promise<number> {
    if (running) {
      again = again === "pass" || scope === "pass" ? "pass" : "handed";
      return running;
    }
    // A request that wakes the queue does not own its queries (the development query log counts per request).
    running = outsideRequest(async () => {
      let total = 0;
      try {
        for (let next: typeof again = scope; next; next = again) {
          again = undefined;
          const unlisted = takeHanded();
          const { done, missed } = await runHanded();
          total += done;
          if (next === "pass" || unlisted || missed) total += await pass();
        }
      } catch (err) {
        logger.error({ queue: name, err: (err as Error).message }, `${name} queue pass failed`);
      } finally {
        running = undefined;
      }
      return total;
    });
    return running;
  }

  return {
    drain: () => drain("pass"),
    wake() {
      const unlisted = takeHanded();
      void drain(handed.length > 0 && !unlisted ? "handed" : "pass");
    },
    start() {
      timer ??= setInterval(() => void drain(), intervalMs);
      timer.unref();
      void drain();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
