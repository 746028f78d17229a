import http from "node:http";
import type { Registry } from "prom-client";

/**
 * GET /metrics in Prometheus' text format, on a port of its own (METRICS_PORT): the site's port and nginx never
 * serve it, so nothing about the instance is public. Anything else on this port is 404.
 */
export function createMetricsServer(registry: Registry): http.Server {
  return http.createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found: this port serves GET /metrics only.\n");
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { "content-type": registry.contentType, "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      (err: Error) => {
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(`metrics could not be read: ${err.message}\n`);
      },
    );
  });
}
