/**
 * Debian's nginx on loopback with the deployment's own site file (deploy/nginx.conf), changed only where a machine
 * without Docker differs: the upstream's `app:3000` becomes the given instances (same parameters), the listener a
 * free loopback port, the logs a temporary folder, and X-Forwarded-Proto `https` (what the commented TLS listener
 * sends: nginx here plays the proxy that ends TLS). Everything else (timeouts, retries, keep-alive, headers) is the
 * file as deployed.
 */
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { spawnTracked } from "../support/children.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const DEPLOY_NGINX_CONF = path.join(root, "deploy/nginx.conf");
/** NGINX_PATH, or Debian's nginx (in /usr/sbin, which a user's PATH may lack). */
const NGINX = process.env.NGINX_PATH || (fs.existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx");

export interface RunningNginx {
  url: string;
  dir: string;
  accessLog(): string[];
  errorLog(): string;
  stop(): Promise<void>;
}

const handedOut = new Set<number>();

/**
 * A port nobody listens on now (the kernel's pick; nginx or an instance takes it a moment later), never one handed
 * out before in this run: the kernel may pick a port it just gave again while nobody listens on it yet.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** Replaces `from` in `text`, which must occur exactly once: the deployment file and this test stay in step. */
function replaceOnce(text: string, from: string | RegExp, to: string): string {
  const count = typeof from === "string" ? text.split(from).length - 1 : [...text.matchAll(new RegExp(from.source, `${from.flags}g`))].length;
  if (count !== 1) throw new Error(`deploy/nginx.conf: expected exactly one ${String(from)}, found ${count}`);
  return text.replace(from, to);
}

/**
 * deploy/nginx.conf for loopback: the instances, the port and the log folder. `https` says X-Forwarded-Proto https
 * (the TLS listener's answer); a plain-HTTP trial (compose.local.yaml) keeps `$scheme`, as its nginx does.
 */
export function siteConfig(instances: string[], port: number, logDir: string, https = true): string {
  let conf = fs.readFileSync(DEPLOY_NGINX_CONF, "utf8");
  conf = replaceOnce(conf, /^( *)server app:3000( [^;]*)?;$/m, instances.map((hostPort) => `    server ${hostPort}$2;`).join("\n"));
  conf = replaceOnce(conf, /^ *listen 80;$/m, `    listen 127.0.0.1:${port};`);
  if (https) conf = replaceOnce(conf, "proxy_set_header X-Forwarded-Proto $scheme;", "proxy_set_header X-Forwarded-Proto https;");
  conf = replaceOnce(conf, "/var/log/nginx/access.log", path.join(logDir, "access.log"));
  return conf;
}

/** Starts nginx in the foreground (`daemon off`) with its pid, logs and temporary files in a folder of its own. */
export async function startNginx(instances: string[], options: { https?: boolean; port?: number } = {}): Promise<RunningNginx> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cluster-nginx-"));
  try {
    return await startIn(dir, instances, options.https ?? true, options.port ?? (await freePort()));
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

async function startIn(dir: string, instances: string[], https: boolean, port: number): Promise<RunningNginx> {
  fs.writeFileSync(path.join(dir, "site.conf"), siteConfig(instances, port, dir, https));
  for (const t of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) fs.mkdirSync(path.join(dir, "tmp", t), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "nginx.conf"),
    [
      "daemon off;",
      // As root, nginx's workers would become `nobody`, who cannot write this folder.
      ...(process.getuid?.() === 0 ? ["user root;"] : []),
      "worker_processes 1;",
      `pid ${path.join(dir, "nginx.pid")};`,
      `error_log ${path.join(dir, "error.log")} warn;`,
      "events { worker_connections 1024; }",
      "http {",
      ...["body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `  ${t === "body" ? "client_body" : t}_temp_path ${path.join(dir, "tmp", t)};`),
      `  include ${path.join(dir, "site.conf")};`,
      "}",
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawnTracked(NGINX, ["-p", dir, "-c", path.join(dir, "nginx.conf"), "-e", path.join(dir, "error.log")], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const spawnFailed = new Promise<never>((_, reject) => child.once("error", (err) => reject(new Error(`nginx could not start (${err.message}); install nginx-light`))));
  const errorLog = () => (fs.existsSync(path.join(dir, "error.log")) ? fs.readFileSync(path.join(dir, "error.log"), "utf8") : "");
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}:\n${output}${errorLog()}`);
    const up = await Promise.race([
      spawnFailed,
      new Promise<boolean>((resolve) => {
        const socket = net.connect(port, "127.0.0.1", () => {
          socket.destroy();
          resolve(true);
        });
        socket.on("error", () => resolve(false));
      }),
    ]);
    if (up) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`nginx did not listen on ${port}:\n${output}${errorLog()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    dir,
    accessLog: () => {
      const file = path.join(dir, "access.log");
      return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
    },
    errorLog,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
