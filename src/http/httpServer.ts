import http, { type RequestListener } from "node:http";
import type { Socket } from "node:net";

/**
 * Slow or abusive clients cannot hold the process: the reverse proxy buffers and times out clients first,
 * these bound what reaches the app anyway. keepAliveTimeout stays below the proxy's client keep-alive
 * (nginx: 75 s) and above its upstream idle timeout, which must be shorter (see the README).
 */
export const SERVER_LIMITS = {
  /** All request headers must arrive within this. */
  headersTimeout: 12_000,
  /** The whole request, body included, must arrive within this. */
  requestTimeout: 30_000,
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeout: 5_000,
  /** Open connections at most; more are refused at once. */
  maxConnections: 1_000,
  /** How often the timeouts above are checked. */
  checkEveryMs: 1_000,
};

export type ServerLimits = typeof SERVER_LIMITS;

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" };

/** A request Node's parser refused (a NUL or CR in a header, a malformed line, headers too large or too slow): a short answer, then close. */
function answerClientError(err: NodeJS.ErrnoException & { code?: string }, socket: Socket): void {
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === "HPE_HEADER_OVERFLOW" ? 431 : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const body = JSON.stringify({ success: false, error: status === 408 ? "The request took too long to arrive." : "The request could not be read." });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function createHttpServer(app: RequestListener, limits: ServerLimits = SERVER_LIMITS): http.Server {
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeout,
      requestTimeout: limits.requestTimeout,
      connectionsCheckingInterval: limits.checkEveryMs,
    },
    app,
  );
  server.keepAliveTimeout = limits.keepAliveTimeout;
  server.maxConnections = limits.maxConnections;
  server.on("clientError", answerClientError);
  return server;
}
