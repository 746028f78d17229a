/**
 * The load generator's HTTP/1.1 client (rushFamily.ts): what a browser sends, on kept-alive connections per
 * origin, at a small share of `node:http`'s CPU in a short-lived process (one write per request, the answer's head
 * read with a few searches of its bytes, no stream or header objects). It speaks what the site and the fake Stripe
 * answer: bodies with a Content-Length, chunked, or up to the connection's close; `Connection: close` honoured.
 * A connection idle for `IDLE_MS` is closed before the server's keep-alive timeout (5 s) could close it under a
 * request.
 */
import net from "node:net";

const IDLE_MS = 4_000;
const HEAD_END = Buffer.from("\r\n\r\n");
const CRLF = Buffer.from("\r\n");

export interface HttpAnswer {
  status: number;
  /** Lower-case header names; only the ones the generator uses. */
  contentEncoding: string | undefined;
  setCookie: string[];
  /** The body as it came (still compressed when the site compressed it); empty when it was not kept (an error's always is). */
  body: Buffer;
}

interface Pooled {
  socket: net.Socket;
  idleSince: number;
}

/** Idle connections per origin ("host:port"), the last used on top. */
const idle = new Map<string, Pooled[]>();

function connection(host: string, port: number): net.Socket {
  const free = idle.get(`${host}:${port}`);
  const now = performance.now();
  while (free?.length) {
    const pooled = free.pop()!;
    if (now - pooled.idleSince < IDLE_MS && !pooled.socket.destroyed) {
      pooled.socket.ref();
      return pooled.socket;
    }
    pooled.socket.destroy();
  }
  const socket = net.connect({ host, port, noDelay: true });
  // An idle connection the server resets must not take the process down; a request's own listener reports it.
  socket.on("error", () => {});
  return socket;
}

function release(host: string, port: number, socket: net.Socket): void {
  socket.unref();
  const key = `${host}:${port}`;
  const free = idle.get(key) ?? idle.set(key, []).get(key)!;
  free.push({ socket, idleSince: performance.now() });
}

/**
 * Sends one request and reads its answer. `headers` is the request's header block (`name: value\r\n` lines), as
 * the caller builds it once; `keep`: false reads the body through without keeping it (a page only received).
 */
export function request(host: string, port: number, method: string, path: string, headers: string, body: string | undefined, keep: boolean): Promise<HttpAnswer> {
  const socket = connection(host, port);
  const length = body === undefined ? "" : `content-length: ${Buffer.byteLength(body)}\r\n`;
  return new Promise((resolve, reject) => {
    const reader = new AnswerReader(keep, method === "HEAD");
    const onData = (chunk: Buffer) => {
      let done: boolean;
      try {
        done = reader.push(chunk);
      } catch (err) {
        finish(err as Error);
        return;
      }
      if (done) finish(undefined);
    };
    const onEnd = () => finish(reader.closed() ? undefined : new Error("the connection closed before the answer ended"));
    const onError = (err: Error) => finish(err);
    const finish = (err: Error | undefined) => {
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("close", onEnd);
      socket.off("error", onError);
      if (err) {
        socket.destroy();
        reject(err);
        return;
      }
      if (reader.reusable && !socket.destroyed && socket.readyState === "open") release(host, port, socket);
      else socket.destroy();
      resolve(reader.answer());
    };
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.once("close", onEnd);
    socket.once("error", onError);
    // The header block as node:http wrote it (the caller's lines, then Host, without the default port, and Connection).
    socket.write(`${method} ${path} HTTP/1.1\r\n${headers}${length}Host: ${port === 80 ? host : `${host}:${port}`}\r\nConnection: keep-alive\r\n\r\n${body ?? ""}`);
  });
}

/** Reads one answer from the bytes as they come. */
class AnswerReader {
  private keep: boolean;
  private noBody: boolean;
  private pending: Buffer | undefined;
  private status = 0;
  private contentEncoding: string | undefined;
  private setCookie: string[] = [];
  private headRead = false;
  /** Bytes of body still to come (Content-Length), -1 chunked, -2 up to the close. */
  private left = 0;
  /** Chunked: bytes of the current chunk still to come, or -1 while its size line is read. */
  private chunkLeft = -1;
  private trailer = false;
  private parts: Buffer[] = [];
  reusable = true;

  constructor(keep: boolean, noBody: boolean) {
    this.keep = keep;
    this.noBody = noBody;
  }

  answer(): HttpAnswer {
    const body = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    return { status: this.status, contentEncoding: this.contentEncoding, setCookie: this.setCookie, body };
  }

  /** The connection closed: a complete answer only when its body runs up to the close. */
  closed(): boolean {
    this.reusable = false;
    return this.headRead && this.left === -2;
  }

  /** true once the answer is complete. */
  push(chunk: Buffer): boolean {
    let data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    if (!this.headRead) {
      const end = data.indexOf(HEAD_END);
      if (end < 0) {
        this.pending = data;
        return false;
      }
      this.readHead(data.toString("latin1", 0, end));
      data = data.subarray(end + 4);
      if (this.noBody || this.status === 204 || this.status === 304) return true;
    }
    return this.left === -1 ? this.pushChunked(data) : this.pushPlain(data);
  }

  /** The head's status and the few headers the generator uses, found by searching the head (names lower-cased). */
  private readHead(head: string): void {
    this.headRead = true;
    this.status = Number(head.slice(9, 12));
    // An error's body is kept for its message even when the page would not have been read.
    if (this.status >= 400) this.keep = true;
    const lower = head.toLowerCase();
    const length = headerValue(lower, "content-length");
    this.left = headerValue(lower, "transfer-encoding")?.includes("chunked") ? -1 : length === undefined ? -2 : Number(length);
    this.contentEncoding = headerValue(lower, "content-encoding");
    if (this.left === -2 || headerValue(lower, "connection")?.includes("close")) this.reusable = false;
    // A cookie's value keeps its case: it is read from the head itself (lower-casing keeps every offset).
    for (let at = lower.indexOf("\r\nset-cookie:"); at >= 0; at = lower.indexOf("\r\nset-cookie:", at + 2)) {
      const end = lower.indexOf("\r\n", at + 2);
      this.setCookie.push(head.slice(at + 13, end < 0 ? undefined : end).trim());
    }
  }

  private pushPlain(data: Buffer): boolean {
    if (data.length && this.keep) this.parts.push(data);
    if (this.left === -2) return false;
    this.left -= data.length;
    if (this.left < 0) throw new Error("more bytes than the answer's Content-Length");
    return this.left === 0;
  }

  private pushChunked(data: Buffer): boolean {
    let at = 0;
    while (at < data.length) {
      if (this.chunkLeft === -1) {
        const eol = data.indexOf(CRLF, at);
        if (eol < 0) {
          this.pending = data.subarray(at);
          return false;
        }
        const line = data.toString("latin1", at, eol);
        at = eol + 2;
        if (this.trailer) {
          if (line === "") return true;
          continue;
        }
        const size = parseInt(line, 16);
        if (Number.isNaN(size)) throw new Error(`a bad chunk size: ${line.slice(0, 20)}`);
        if (size === 0) this.trailer = true;
        else this.chunkLeft = size + 2; // the chunk and its CRLF
        continue;
      }
      const take = Math.min(this.chunkLeft, data.length - at);
      // The chunk's bytes without its closing CRLF.
      const dataEnd = at + Math.min(take, Math.max(0, this.chunkLeft - 2));
      if (this.keep && dataEnd > at) this.parts.push(data.subarray(at, dataEnd));
      this.chunkLeft -= take;
      at += take;
      if (this.chunkLeft === 0) this.chunkLeft = -1;
    }
    return false;
  }
}

/** A header's value in a lower-cased head (the first of its lines), trimmed; undefined when it is not there. */
function headerValue(lower: string, name: string): string | undefined {
  const at = lower.indexOf(`\r\n${name}:`);
  if (at < 0) return undefined;
  const from = at + name.length + 3;
  const end = lower.indexOf("\r\n", from);
  return lower.slice(from, end < 0 ? undefined : end).trim();
}
