/**
 * The arguments of the operator's payment commands (`npm run payments|refund|resend -- ...`), checked before anything
 * is read or written. Each parser answers the command, `{ help: true }` or one line of `{ error }`.
 */

/** What a payment pays for: an event registration or a shop order (the payment core's kinds). */
export const PAID_KINDS = ["registration", "order"] as const;
export type PaidKind = (typeof PAID_KINDS)[number];

/** The longest an operator command waits for a running app instance to send a refund. */
export const MAX_WAIT_SECONDS = 600;
export const DEFAULT_WAIT_SECONDS = 60;

export type PaymentsCommand =
  | { command: "list" }
  | { command: "accept"; paymentId: number; acceptDifference?: boolean }
  | { command: "refund"; paymentId: number; reason: string; waitSeconds: number }
  | { command: "failedRefunds" }
  | { command: "balances"; dueWithinDays?: number; overdueOnly: boolean };

export interface RefundCommand {
  kind: PaidKind;
  reference: string;
  /** Cents; undefined refunds what is left of the payment. */
  amountCents?: number;
  reason: string;
  waitSeconds: number;
}

export interface ResendCommand {
  kind: PaidKind;
  reference: string;
}

type Parsed<T> = T | { help: true } | { error: string };

export const PAYMENTS_USAGE = [
  "Usage:",
  "  npm run payments -- review list",
  "  npm run payments -- review accept PAYMENT_ID [--accept-difference]",
  '  npm run payments -- review refund PAYMENT_ID --reason "..." [--wait SECONDS]',
  "  npm run payments -- refunds failed",
  "  npm run payments -- balances [--due-within DAYS] [--overdue]",
  "",
  "list: the payments in needs_review (money taken that does not match what it pays for): id, kind, reference,",
  "the payment's amount, what the registration or order asks now and its status, age, the payer (masked), the reason.",
  "accept: keep the money; the payment becomes paid and its registration or order is paid and confirmed as for any",
  "payment (the confirmation e-mail goes out). Refused, changing nothing, when it cannot take the money.",
  "refund: refund the whole payment (see npm run refund -- --help for --wait and the exit codes); a registration's",
  "places are released when the refund succeeds.",
  "refunds failed: the refunds Stripe refused or reversed (the money is still with the shop): refund id, payment,",
  "kind, reference, amount, when, the payer (masked), Stripe's reason. Refund again with npm run refund and another reason.",
  "balances: the deposit registrations whose balance is still owed (deposit_paid or balance_overdue), soonest due",
  "first: reference, event, state, what is owed, the due date, the grace date, the attempts made, the last outcome, the",
  "next attempt, the saved card and the payer (masked). --due-within 7 keeps those due in the next 7 days (or past due);",
  "--overdue keeps the balance_overdue ones (the job gave up: the places go to the waiting list at the grace date).",
].join("\n");

export const REFUND_USAGE = [
  "Usage:",
  '  npm run refund -- registration REFERENCE [--amount 25.00] --reason "..." [--wait SECONDS]',
  '  npm run refund -- order REFERENCE [--amount 25.00] --reason "..." [--wait SECONDS]',
  "",
  "Refunds the paid registration or order, in full (what is left unrefunded) or --amount dollars of it. The",
  "request is written to the database and a running app instance's refund job sends it to Stripe; the command waits",
  `for the outcome up to --wait seconds (default ${DEFAULT_WAIT_SECONDS}, at most ${MAX_WAIT_SECONDS}). The same command`,
  "run again (same amount and reason) refunds nothing more: it reports the first refund.",
  "Exit codes: 0 succeeded; 1 refused (bad input, nothing to refund, more than is left: nothing written);",
  "3 pending at Stripe (it finishes on its own); 4 failed (Stripe refused it); 5 still queued (no running app",
  "instance sent it in time: it is kept and sent when one runs).",
].join("\n");

export const RESEND_USAGE = [
  "Usage:",
  "  npm run resend -- registration REFERENCE",
  "  npm run resend -- order REFERENCE",
  "",
  "Queues the confirmation e-mail of a paid registration or order again, as the payment sent it, to the address",
  "it holds; a running app instance's outbox sends it. An order's new e-mail carries a new order-status link (only",
  "a hash of the link is kept), and the link in the earlier e-mail stops working.",
].join("\n");

const wantsHelp = (argv: string[]) => argv.includes("--help") || argv.includes("-h");

/** `--flag value` pairs after the positional arguments: only the allowed flags, each once, each with a value. */
function flags(rest: string[], allowed: readonly string[]): Map<string, string> | { error: string } {
  const opts = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i]!;
    if (!allowed.includes(flag)) return { error: flag.startsWith("--") ? `Unknown option ${flag} (see --help).` : `Unexpected argument ${flag} (see --help).` };
    const value = rest[i + 1];
    if (value === undefined || value.startsWith("--")) return { error: `${flag} needs a value.` };
    if (opts.has(flag)) return { error: `${flag} is given twice.` };
    opts.set(flag, value);
  }
  return opts;
}

function parseId(value: string | undefined): number | { error: string } {
  if (value === undefined) return { error: "Name the payment: its id, as review list shows it (see --help)." };
  if (!/^[1-9]\d{0,9}$/.test(value)) return { error: `A payment id is a whole number, not ${value}.` };
  return Number(value);
}

function parseKindAndReference(kind: string | undefined, reference: string | undefined): { kind: PaidKind; reference: string } | { error: string } {
  if (!kind) return { error: `Name what: ${PAID_KINDS.join(" or ")} REFERENCE (see --help).` };
  if (!(PAID_KINDS as readonly string[]).includes(kind)) return { error: `Unknown kind ${kind}: ${PAID_KINDS.join(" or ")} (see --help).` };
  if (reference === undefined || reference.startsWith("--")) return { error: `Name the ${kind}: its reference, e.g. ${kind === "order" ? "K7M2QX9A" : "R7M2QX9A"}.` };
  if (!/^[A-Za-z0-9-]{1,40}$/.test(reference)) return { error: `${reference} is not a reference (letters, digits and -).` };
  return { kind: kind as PaidKind, reference: reference.toUpperCase() };
}

function parseReason(value: string | undefined): string | { error: string } {
  const reason = value?.trim();
  if (!reason) return { error: 'Give the reason: --reason "..." (it is kept with the refund and sent to Stripe).' };
  if (reason.length > 500) return { error: "--reason is at most 500 characters." };
  return reason;
}

function parseWait(value: string | undefined): number | { error: string } {
  if (value === undefined) return DEFAULT_WAIT_SECONDS;
  if (!/^\d{1,4}$/.test(value) || Number(value) > MAX_WAIT_SECONDS) return { error: `--wait is a number of seconds from 0 to ${MAX_WAIT_SECONDS}, not ${value}.` };
  return Number(value);
}

/** Dollars as an operator types them (25, 25.5, 25.00) to cents; more than two decimals or nothing to refund is refused. */
export function parseDollars(value: string): number | null {
  const m = /^(\d{1,7})(?:\.(\d{1,2}))?$/.exec(value);
  if (!m) return null;
  const cents = Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
  return cents > 0 ? cents : null;
}

export function parsePaymentsArgs(argv: string[]): Parsed<PaymentsCommand> {
  if (wantsHelp(argv)) return { help: true };
  const [group, command, id, ...rest] = argv;
  if (group === "refunds") {
    if (command !== "failed") return { error: command ? `Unknown refunds command ${command}: refunds failed (see --help).` : "Name a refunds command: refunds failed (see --help)." };
    return id === undefined ? { command: "failedRefunds" } : { error: `refunds failed takes no argument ${id}.` };
  }
  if (group === "balances") return parseBalancesArgs(argv.slice(1));
  if (group !== "review") return { error: group ? `Unknown command ${group}: payments review list|accept|refund, refunds failed or balances (see --help).` : "Name a command: payments review list|accept|refund, refunds failed or balances (see --help)." };
  switch (command) {
    case "list":
      return id === undefined ? { command: "list" } : { error: `review list takes no argument ${id}.` };
    case "accept": {
      const paymentId = parseId(id);
      if (typeof paymentId !== "number") return paymentId;
      const other = rest.find((a) => a !== "--accept-difference");
      return other !== undefined ? { error: `review accept takes no argument ${other} (see --help).` } : { command: "accept", paymentId, ...(rest.includes("--accept-difference") ? { acceptDifference: true } : {}) };
    }
    case "refund": {
      const paymentId = parseId(id);
      if (typeof paymentId !== "number") return paymentId;
      const opts = flags(rest, ["--reason", "--wait"]);
      if ("error" in opts) return opts;
      const reason = parseReason(opts.get("--reason"));
      if (typeof reason !== "string") return reason;
      const waitSeconds = parseWait(opts.get("--wait"));
      if (typeof waitSeconds !== "number") return waitSeconds;
      return { command: "refund", paymentId, reason, waitSeconds };
    }
    default:
      return { error: command ? `Unknown review command ${command}: list, accept or refund (see --help).` : "Name a review command: list, accept or refund (see --help)." };
  }
}

/** `balances [--due-within DAYS] [--overdue]`. */
function parseBalancesArgs(rest: string[]): Parsed<PaymentsCommand> {
  const overdueOnly = rest.includes("--overdue");
  const opts = flags(rest.filter((a) => a !== "--overdue"), ["--due-within"]);
  if ("error" in opts) return opts;
  const within = opts.get("--due-within");
  if (within === undefined) return { command: "balances", overdueOnly };
  if (!/^\d{1,3}$/.test(within)) return { error: `--due-within is a number of days from 0 to 999, not ${within}.` };
  return { command: "balances", dueWithinDays: Number(within), overdueOnly };
}

export function parseRefundArgs(argv: string[]): Parsed<RefundCommand> {
  if (wantsHelp(argv)) return { help: true };
  const [kind, reference, ...rest] = argv;
  const what = parseKindAndReference(kind, reference);
  if ("error" in what) return what;
  const opts = flags(rest, ["--amount", "--reason", "--wait"]);
  if ("error" in opts) return opts;
  const cmd: RefundCommand = { ...what, reason: "", waitSeconds: 0 };
  const amount = opts.get("--amount");
  if (amount !== undefined) {
    const cents = parseDollars(amount.replace(/^\$/, ""));
    if (cents === null) return { error: `--amount is dollars and cents above zero, e.g. 25.00, not ${amount}.` };
    cmd.amountCents = cents;
  }
  const reason = parseReason(opts.get("--reason"));
  if (typeof reason !== "string") return reason;
  cmd.reason = reason;
  const waitSeconds = parseWait(opts.get("--wait"));
  if (typeof waitSeconds !== "number") return waitSeconds;
  cmd.waitSeconds = waitSeconds;
  return cmd;
}

export function parseResendArgs(argv: string[]): Parsed<ResendCommand> {
  if (wantsHelp(argv)) return { help: true };
  const [kind, reference, ...rest] = argv;
  const what = parseKindAndReference(kind, reference);
  if ("error" in what) return what;
  return rest.length ? { error: `resend takes no argument ${rest[0]!} (see --help).` } : what;
}
