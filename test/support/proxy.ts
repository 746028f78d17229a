import net from "node:net";
import type { AddressInfo } from "node:net";

/**
 * A TCP proxy on loopback in front of a real service, that a test can take down and bring back on the same port
 * (the service "stops" and "starts"), or pause (it accepts connections and bytes but answers nothing, like a
 * hung server or `CLIENT PAUSE`) and resume, without touching the real server others use.
 */
export async function startTcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  let paused = false;
  /** Bytes held while paused, in arrival order, delivered on resume. */
  let held: { to: net.Socket; chunk: Buffer }[] = [];

  const forward = (from: net.Socket, to: net.Socket) => {
    from.on("data", (chunk: Buffer) => {
      if (paused) held.push({ to, chunk });
      else if (!to.destroyed) to.write(chunk);
    });
    from.on("end", () => to.end());
  };

  const listen = () =>
    new Promise<void>((resolve) => {
      if (server?.listening) return resolve();
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => {
            sockets.delete(s);
            (s === client ? upstream : client).destroy();
          });
          s.on("error", () => s.destroy());
        }
        forward(client, upstream);
        forward(upstream, client);
      });
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });

  const closeAll = async () => {
    for (const s of sockets) s.destroy();
    held = [];
    if (server?.listening) await new Promise<void>((resolve) => server!.close(() => resolve()));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    /** The service stops: connections are cut and new ones refused. */
    down: closeAll,
    up: listen,
    /** The service hangs: connections (old and new) stay open, but nothing is forwarded either way. */
    pause() {
      paused = true;
    },
    /** Everything held while paused is delivered, and forwarding goes on. */
    resume() {
      paused = false;
      const pending = held;
      held = [];
      for (const { to, chunk } of pending) if (!to.destroyed) to.write(chunk);
    },
    close: closeAll,
  };
}
