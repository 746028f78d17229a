import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LOGO_MAX_BYTES } from "../../src/shared/collegeCoachRequests/rules.ts";
import { COACH_API, COACH_PAGE } from "../../src/collegeCoachRequests/routes.tsx";

/**
 * compose.yaml cannot run here (no Docker engine), so its structure is read as text: the services, what each waits
 * for, the health checks, and that its commands are the package's own scripts. `npm run test:cluster` runs
 * deploy/nginx.conf itself.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");
const compose = read("compose.yaml");
const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;

/** The text of each top-level block (`x-app`, `services`, `volumes`) and of each service, by name. */
function blocks(text: string, indent: string): Map<string, string> {
  const found = new Map<string, string>();
  const header = new RegExp(`^${indent}([\\w-]+):\\s*(?:&\\w+)?$`);
  let name: string | undefined;
  for (const line of text.split("\n")) {
    const m = header.exec(line);
    if (m) name = m[1]!;
    else if (name && line.trim() && !line.startsWith(`${indent} `)) name = undefined;
    if (name && !m) found.set(name, `${found.get(name) ?? ""}${line}\n`);
  }
  return found;
}
const top = blocks(compose, "");
const services = blocks(top.get("services") ?? "", "  ");
const service = (name: string) => services.get(name) ?? "";
/** A compose command list (`["node", "--import", ...]`) as the shell line it runs. */
const commandOf = (block: string, key: string) => (JSON.parse(new RegExp(`^ +${key}: (\\[.*\\])$`, "m").exec(block)?.[1] ?? "[]") as string[]).join(" ");

describe("compose.yaml", () => {
  it("has MySQL 8, Redis 7, a one-shot migrate, two app replicas and nginx, with volumes for the data", () => {
    expect([...services.keys()]).toEqual(["mysql", "redis", "migrate", "app", "nginx", "prometheus", "grafana"]);
    expect(service("mysql")).toMatch(/image: mysql:8\./);
    expect(service("redis")).toMatch(/image: redis:7/);
    expect(service("app")).toMatch(/replicas: 2/);
    expect(service("migrate")).toMatch(/restart: "no"/);
    expect(service("mysql")).toMatch(/- mysql-data:\/var\/lib\/mysql/);
    expect(service("redis")).toMatch(/- redis-data:\/data/);
    expect([...(top.get("volumes") ?? "").matchAll(/^ {2}([\w-]+):$/gm)].map((m) => m[1])).toEqual(["mysql-data", "redis-data", "app-var", "prometheus-data", "grafana-data"]);
  });

  it("runs Prometheus and Grafana only with --profile monitoring, on loopback, and never publishes the metrics port", () => {
    for (const name of ["prometheus", "grafana"]) {
      expect(service(name), name).toMatch(/profiles: \["monitoring"\]/);
      expect(service(name), name).toMatch(/- "127\.0\.0\.1:\d+:\d+"/);
    }
    for (const name of ["mysql", "redis", "migrate", "app", "nginx"]) expect(service(name), name).not.toMatch(/profiles:/);
    expect(top.get("x-app")).toMatch(/METRICS_PORT: "9100"/);
    expect(compose).not.toMatch(/9100:/);
    expect(service("prometheus")).toMatch(/- \.\/deploy\/prometheus\/alerts\.yml:\/etc\/prometheus\/alerts\.yml:ro/);
    expect(read("deploy/prometheus/prometheus.yml")).toMatch(/names: \["app"\]\n\s+type: A\n\s+port: 9100/);
  });

  it("starts the app only after the migration ran and the services are healthy, and nginx after the app is ready", () => {
    expect(service("app")).toMatch(/migrate:\n +condition: service_completed_successfully/);
    expect(service("app")).toMatch(/mysql:\n +condition: service_healthy/);
    expect(service("app")).toMatch(/redis:\n +condition: service_healthy/);
    expect(service("migrate")).toMatch(/mysql:\n +condition: service_healthy/);
    expect(service("nginx")).toMatch(/app:\n +condition: service_healthy/);
  });

  it("checks the health of MySQL, Redis, the app (its /readyz) and nginx", () => {
    const check = (name: string) => /healthcheck:\n(?: +#.*\n)* +test: (\[.*\])\n/.exec(service(name))?.[1] ?? "";
    for (const name of ["mysql", "redis", "app", "nginx"]) expect(check(name), name).toMatch(/^\["CMD/);
    expect(check("app")).toContain("http://127.0.0.1:3000/readyz");
  });

  it("runs the package's own commands: migrate is `npm run migrate`, the app the image's CMD (`npm run serve`)", () => {
    expect(`node ${commandOf(service("migrate"), "command").replace(/^node /, "")}`).toBe(scripts.migrate);
    const cmd = /^CMD (\[.*\])$/m.exec(read("Dockerfile"))?.[1];
    expect((JSON.parse(cmd ?? "[]") as string[]).join(" ")).toBe(scripts.serve);
  });

  it("gives both app services the env file, one proxy hop and the services by name; nginx the repository's config", () => {
    const app = top.get("x-app") ?? "";
    expect(service("migrate")).toMatch(/<<: \*app/);
    expect(service("app")).toMatch(/<<: \*app/);
    expect(app).toMatch(/env_file: ironside\.env/);
    expect(app).toMatch(/TRUST_PROXY_HOPS: "1"/);
    expect(app).toMatch(/DATABASE_URL: mysql:\/\/ironside:\$\{MYSQL_PASSWORD[^}]*\}@mysql:3306\/ironside/);
    expect(app).toMatch(/REDIS_URL: redis:\/\/redis:6379/);
    expect(service("nginx")).toMatch(/- \.\/deploy\/nginx\.conf:\/etc\/nginx\/conf\.d\/default\.conf:ro/);
    expect(fs.existsSync(path.join(root, "ironside.env.example"))).toBe(true);
  });

  it("keeps ironside.env (the secrets) out of the image", () => {
    expect(read(".dockerignore").split("\n")).toContain("ironside.env");
  });
});

describe("deploy/nginx.conf", () => {
  const conf = read("deploy/nginx.conf");
  it("proxies to the app service with the X-Forwarded headers and sends failed GETs to another instance", () => {
    expect(conf).toMatch(/^ *server app:3000\b[^;]*;$/m);
    expect(conf).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    expect(conf).toMatch(/proxy_set_header X-Forwarded-Proto \$scheme;/);
    expect(conf).toMatch(/proxy_next_upstream error timeout/);
    expect(conf).toMatch(/^ *proxy_next_upstream (?!.*non_idempotent)[^;]*;$/m);
    expect(conf).toMatch(/keepalive_timeout 4s;/);
  });

  it("lets 1 MB bodies through, and a coach's logo on the two coach routes", () => {
    expect(conf).toMatch(/^ {4}client_max_body_size 1m;$/m);
    for (const route of [COACH_PAGE, COACH_API]) {
      const limit = new RegExp(`location = ${route} \\{\\n +client_max_body_size (\\d+)m;`).exec(conf)?.[1];
      expect(Number(limit) * 1024 * 1024, route).toBeGreaterThan(LOGO_MAX_BYTES);
    }
  });
});
