import net from "node:net";
import type { AddressInfo } from "node:net";

/**
 * A TCP proxy on loopback in front of a real service, that a test can take down and bring back on the same port:
 * the service "stops" and "starts" for the app without touching the real server others use.
 */
export async function startTcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;

  const listen = () =>
    new Promise<void>((resolve) => {
      if (server?.listening) return resolve();
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });

  await listen();
  return {
    get port() {
      return port;
    },
    async down() {
      for (const s of sockets) s.destroy();
      if (server?.listening) await new Promise<void>((resolve) => server!.close(() => resolve()));
    },
    up: listen,
    async close() {
      for (const s of sockets) s.destroy();
      if (server?.listening) await new Promise<void>((resolve) => server!.close(() => resolve()));
    },
  };
}
