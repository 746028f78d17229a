/**
 * A small read-through cache: values live `ttlMs`; concurrent reads of one key share one load; when a
 * refresh fails, the last good value is served (stale) rather than nothing, and the error is reported.
 */
export interface ReadCache {
  get<T>(key: string, load: () => Promise<T>): Promise<T>;
  clear(): void;
}

export function createReadCache(opts: { ttlMs: number; now?: () => number; onStale?: (key: string, err: unknown) => void }): ReadCache {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, { value: unknown; expires: number }>();
  const loading = new Map<string, Promise<unknown>>();

  return {
    async get<T>(key: string, load: () => Promise<T>): Promise<T> {
      const entry = entries.get(key);
      if (entry && entry.expires > now()) return entry.value as T;
      const pending = loading.get(key);
      if (pending) return pending as Promise<T>;
      const promise = load()
        .then((value) => {
          entries.set(key, { value, expires: now() + opts.ttlMs });
          return value;
        })
        .catch((err: unknown) => {
          if (!entry) throw err;
          opts.onStale?.(key, err);
          return entry.value as T;
        })
        .finally(() => loading.delete(key));
      loading.set(key, promise);
      return promise;
    },
    clear() {
      entries.clear();
    },
  };
}
