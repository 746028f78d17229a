/**
 * The site's one in-process read cache. A value lives `ttlMs`; concurrent reads of a key share one load;
 * `invalidate()` (after a write committed) drops every value, and a load that began before it is not kept, since
 * it may have read what the write replaced. With `onStale`, a failed refresh serves the last good value instead of
 * the error. Values are shared by every request, so they are frozen. At most `maxEntries` keys are kept (the oldest
 * go first): keys taken from addresses cannot grow it without bound.
 */
export interface TtlCache {
  get<T>(key: string, load: () => Promise<T>): Promise<T>;
  /** The value kept under `key` if it is still fresh; never loads. */
  peek<T>(key: string): T | undefined;
  invalidate(): void;
}

export interface TtlCacheOptions {
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
  onStale?: (key: string, err: unknown) => void;
}

export function createTtlCache(opts: TtlCacheOptions): TtlCache {
  const now = opts.now ?? (() => Date.now());
  const maxEntries = opts.maxEntries ?? 1000;
  const entries = new Map<string, { value: unknown; expires: number }>();
  const loading = new Map<string, Promise<unknown>>();
  let generation = 0;

  function keep(key: string, value: unknown): void {
    entries.delete(key);
    entries.set(key, { value: deepFreeze(value), expires: now() + opts.ttlMs });
    for (const oldest of entries.keys()) {
      if (entries.size <= maxEntries) break;
      entries.delete(oldest);
    }
  }

  return {
    async get<T>(key: string, load: () => Promise<T>): Promise<T> {
      const entry = entries.get(key);
      if (entry && entry.expires > now()) return entry.value as T;
      const pending = loading.get(key);
      if (pending) return pending as Promise<T>;
      const startedIn = generation;
      const promise: Promise<T> = load()
        .then((value) => {
          if (startedIn === generation) keep(key, value);
          return value;
        })
        .catch((err: unknown) => {
          const last = entries.get(key);
          if (!last || !opts.onStale) throw err;
          opts.onStale(key, err);
          return last.value as T;
        })
        .finally(() => {
          if (loading.get(key) === promise) loading.delete(key);
        });
      loading.set(key, promise);
      return promise;
    },
    peek<T>(key: string): T | undefined {
      const entry = entries.get(key);
      return entry && entry.expires > now() ? (entry.value as T) : undefined;
    },
    invalidate() {
      generation += 1;
      entries.clear();
      loading.clear();
    },
  };
}

/** Values shared by every request are frozen, so a change made for one request fails loudly instead of leaking into the next. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}
