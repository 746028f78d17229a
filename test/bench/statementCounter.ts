import net from "node:net";
import type { AddressInfo } from "node:net";

/** MySQL's command bytes for a statement: COM_QUERY, COM_STMT_PREPARE, COM_STMT_EXECUTE. */
const STATEMENT_COMMANDS = new Set([0x03, 0x16, 0x17]);

/**
 * A TCP proxy on loopback in front of MySQL that counts the statements its clients send: each command packet
 * (sequence id 0) whose command is a query, a prepare or an execute. The site connects through it, so what its
 * pages cost the database is counted exactly, whatever else the shared server is doing.
 */
export async function startStatementCounter(target: { host: string; port: number }): Promise<{ port: number; statements(): number; texts: string[]; close(): Promise<void> }> {
  let statements = 0;
  /** Each counted statement's first bytes (its SQL, for a query), while someone keeps them (`texts.length = 0` empties). */
  const texts: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => {
        sockets.delete(s);
        (s === client ? upstream : client).destroy();
      });
      s.on("error", () => s.destroy());
    }
    // Packets: 3 bytes of length, 1 of sequence id, then the payload; a chunk may end anywhere within one.
    let header = Buffer.alloc(0);
    let payloadLeft = 0;
    let atPayloadStart = false;
    let sequence = 0;
    client.on("data", (chunk: Buffer) => {
      upstream.write(chunk);
      let at = 0;
      while (at < chunk.length) {
        if (payloadLeft > 0) {
          if (atPayloadStart && sequence === 0 && STATEMENT_COMMANDS.has(chunk[at]!)) {
            statements += 1;
            if (texts.length < 100_000) texts.push(chunk.subarray(at + 1, at + Math.min(payloadLeft, 160)).toString("latin1"));
          }
          atPayloadStart = false;
          const take = Math.min(payloadLeft, chunk.length - at);
          payloadLeft -= take;
          at += take;
          continue;
        }
        const need = 4 - header.length;
        header = Buffer.concat([header, chunk.subarray(at, at + need)]);
        at += Math.min(need, chunk.length - at);
        if (header.length < 4) break;
        payloadLeft = header[0]! | (header[1]! << 8) | (header[2]! << 16);
        sequence = header[3]!;
        atPayloadStart = true;
        header = Buffer.alloc(0);
      }
    });
    client.on("end", () => upstream.end());
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    upstream.on("end", () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    statements: () => statements,
    texts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
