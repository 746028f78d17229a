/** fetch for widgets: same-origin credentials, the CSRF header, JSON in and out, the spec's error text. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown> | null,
    message: string,
  ) {
    super(message);
  }
  /** The server's own message (`error`, `userFriendlyMessage` or `message`), if it sent one. */
  get serverMessage(): string | undefined {
    const b = this.body;
    const m = b?.userFriendlyMessage ?? b?.error ?? b?.message;
    return typeof m === "string" ? m : undefined;
  }
}

export function csrfToken(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "";
}

/** `json` is sent as JSON; `form` as multipart/form-data (for a file), the browser setting its boundary. */
export async function apiFetch<T>(url: string, init: { method?: string; json?: unknown; form?: FormData } = {}): Promise<T> {
  const method = init.method ?? "GET";
  const headers: Record<string, string> = { accept: "application/json" };
  if (method !== "GET") headers["x-csrf-token"] = csrfToken();
  if (init.json !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(url, {
    method,
    headers,
    credentials: "same-origin",
    body: init.form ?? (init.json === undefined ? undefined : JSON.stringify(init.json)),
  });
  const text = await res.text();
  let body: Record<string, unknown> | null = null;
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
  } catch {
    body = null;
  }
  if (!res.ok) throw new ApiError(res.status, body, `${res.status}: ${text || res.statusText}`);
  return body as T;
}
