/**
 * A stand-in for the site and the fake Stripe that answers the load generator of `npm run bench:rush` with answers
 * recorded from the real ones (test/bench/rushGenMeasure.ts records them): the same status, headers (cookies,
 * Content-Encoding) and bytes, so that the generator does what it does in the rush while costing next to nothing
 * itself. Each step can wait before it answers (as a busy site does) so that as many connections stay open as in the rush.
 *
 *   node test/bench/rushGenStub.ts <recorded.json>   prints `stub listening on http://127.0.0.1:PORT`
 *   STUB_LOG=file: every request (line, headers in the order sent, body) is appended to that file
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";

export type StubStep = "page-individual" | "page-team" | "hold-individual" | "hold-team" | "checkout" | "confirm" | "return" | "landing-individual" | "landing-team";

export interface RecordedAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  /** The body as it went on the wire (compressed when the site compressed it; without the chunks' framing), base64. */
  body: string;
}

export interface Recorded {
  answers: Partial<Record<StubStep, RecordedAnswer>>;
  /** How long each step waits before it answers, ms. */
  delayMs: Partial<Record<StubStep, number>>;
}

/** Which of the recorded answers a request of the generator gets. */
export function stepOf(method: string, url: string): StubStep | undefined {
  if (method === "GET") {
    if (url.startsWith("/register/")) return "page-individual";
    if (url.startsWith("/team-register/")) return "page-team";
    if (url.startsWith("/stripe-checkout")) return url.includes("success=true") ? "landing-team" : "checkout";
    if (url.startsWith("/event-registration/")) return "landing-individual";
    return undefined;
  }
  if (url.startsWith("/v1/payment_intents/") && url.endsWith("/confirm")) return "confirm";
  if (url === "/api/team-registration") return "hold-team";
  if (/^\/api\/events\/\d+\/create-payment-intent$/.test(url)) return "hold-individual";
  if (/^\/api\/events\/\d+\/stripe-payment-success$/.test(url)) return "return";
  return undefined;
}

/** `log`: each request's line, headers and body are appended there (to compare what two generators send). */
function serve(recorded: Recorded, log?: string): http.Server {
  const answers = new Map(
    Object.entries(recorded.answers).map(([step, a]) => {
      const body = Buffer.from(a.body, "base64");
      // An answer the site sent chunked (a compressed page) goes in two chunks, else with its length.
      const chunked = a.headers["transfer-encoding"] === "chunked";
      return [step, { status: a.status, headers: chunked ? a.headers : { ...a.headers, "content-length": String(body.length) }, body, chunked }];
    }),
  );
  return http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    const step = stepOf(req.method ?? "GET", req.url ?? "/");
    const answer = step && answers.get(step);
    const body: Buffer[] = [];
    req.on("data", (chunk: Buffer) => log && body.push(chunk));
    req.once("end", () => {
      if (log) fs.appendFileSync(log, `${req.method} ${req.url}\n${req.rawHeaders.join("\n")}\n${Buffer.concat(body).toString()}\n\n`);
      if (!answer) {
        res.writeHead(404, { "content-type": "text/plain" }).end("not recorded");
        return;
      }
      const send = () => {
        res.writeHead(answer.status, answer.headers);
        if (answer.chunked) res.write(answer.body.subarray(0, answer.body.length >> 1));
        res.end(answer.chunked ? answer.body.subarray(answer.body.length >> 1) : answer.body);
      };
      const delay = recorded.delayMs[step] ?? 0;
      if (delay > 0) setTimeout(send, delay);
      else send();
    });
  });
}

if (import.meta.main) {
  const file = process.argv[2];
  if (!file) {
    console.error("usage: rushGenStub.ts <recorded.json>");
    process.exit(2);
  }
  const server = serve(JSON.parse(fs.readFileSync(file, "utf8")) as Recorded, process.env.STUB_LOG);
  server.listen(0, "127.0.0.1", () => console.log(`stub listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  process.once("SIGTERM", () => process.exit(0));
}
