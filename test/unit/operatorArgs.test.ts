import { describe, expect, it } from "vitest";
import { DEFAULT_WAIT_SECONDS, parseDollars, parsePaymentsArgs, parseRefundArgs, parseResendArgs } from "../../src/cli/operatorArgs.ts";
import { ageText } from "../../src/cli/payments.ts";
import { operatorRefundKey } from "../../src/cli/refund.ts";

const refused = (parsed: object) => ("error" in parsed ? (parsed as { error: string }).error : null);

describe("npm run payments -- review ...", () => {
  it("reads list, accept ID and refund ID --reason [--wait]", () => {
    expect(parsePaymentsArgs(["review", "list"])).toEqual({ command: "list" });
    expect(parsePaymentsArgs(["refunds", "failed"])).toEqual({ command: "failedRefunds" });
    expect(parsePaymentsArgs(["review", "accept", "7", "--accept-difference"])).toEqual({ command: "accept", paymentId: 7, acceptDifference: true });
    expect(parsePaymentsArgs(["refunds", "failed", "3"])).toEqual({ error: "refunds failed takes no argument 3." });
    expect(parsePaymentsArgs(["refunds"])).toEqual({ error: "Name a refunds command: refunds failed (see --help)." });
    expect(parsePaymentsArgs(["review", "accept", "17"])).toEqual({ command: "accept", paymentId: 17 });
    expect(parsePaymentsArgs(["review", "refund", "17", "--reason", " wrong amount "])).toEqual({ command: "refund", paymentId: 17, reason: "wrong amount", waitSeconds: DEFAULT_WAIT_SECONDS });
    expect(parsePaymentsArgs(["review", "refund", "17", "--wait", "0", "--reason", "x"])).toMatchObject({ waitSeconds: 0 });
    expect(parsePaymentsArgs(["review", "accept", "17", "--help"])).toEqual({ help: true });
    expect(parsePaymentsArgs(["balances"])).toEqual({ command: "balances", overdueOnly: false });
    expect(parsePaymentsArgs(["balances", "--overdue"])).toEqual({ command: "balances", overdueOnly: true });
    expect(parsePaymentsArgs(["balances", "--due-within", "7", "--overdue"])).toEqual({ command: "balances", dueWithinDays: 7, overdueOnly: true });
    expect(parsePaymentsArgs(["balances", "--overdue", "--due-within", "0"])).toEqual({ command: "balances", dueWithinDays: 0, overdueOnly: true });
  });

  it("refuses anything else with one line", () => {
    const cases: [string[], string][] = [
      [[], "Name a command: payments review list|accept|refund, refunds failed or balances (see --help)."],
      [["list"], "Unknown command list: payments review list|accept|refund, refunds failed or balances (see --help)."],
      [["balances", "--due-within"], "--due-within needs a value."],
      [["balances", "--due-within", "soon"], "--due-within is a number of days from 0 to 999, not soon."],
      [["balances", "--due-within", "1000"], "--due-within is a number of days from 0 to 999, not 1000."],
      [["balances", "--late"], "Unknown option --late (see --help)."],
      [["balances", "R7M2QX9A"], "Unexpected argument R7M2QX9A (see --help)."],
      [["review"], "Name a review command: list, accept or refund (see --help)."],
      [["review", "settle", "1"], "Unknown review command settle: list, accept or refund (see --help)."],
      [["review", "list", "extra"], "review list takes no argument extra."],
      [["review", "accept"], "Name the payment: its id, as review list shows it (see --help)."],
      [["review", "accept", "R7M2QX9A"], "A payment id is a whole number, not R7M2QX9A."],
      [["review", "accept", "0"], "A payment id is a whole number, not 0."],
      [["review", "accept", "3", "4"], "review accept takes no argument 4 (see --help)."],
      [["review", "refund", "3"], 'Give the reason: --reason "..." (it is kept with the refund and sent to Stripe).'],
      [["review", "refund", "3", "--reason", "   "], 'Give the reason: --reason "..." (it is kept with the refund and sent to Stripe).'],
      [["review", "refund", "3", "--reason"], "--reason needs a value."],
      [["review", "refund", "3", "--reason", "a", "--reason", "b"], "--reason is given twice."],
      [["review", "refund", "3", "--reason", "a", "--amount", "5"], "Unknown option --amount (see --help)."],
      [["review", "refund", "3", "--reason", "a", "--wait", "601"], "--wait is a number of seconds from 0 to 600, not 601."],
      [["review", "refund", "3", "--reason", "a", "--wait", "-1"], "--wait is a number of seconds from 0 to 600, not -1."],
    ];
    for (const [argv, error] of cases) expect(refused(parsePaymentsArgs(argv)), argv.join(" ")).toBe(error);
  });
});

describe("npm run refund -- ...", () => {
  it("reads the kind, the reference, an amount in dollars, the reason and the wait", () => {
    expect(parseRefundArgs(["registration", "r7m2qx9a", "--reason", "injured"])).toEqual({ kind: "registration", reference: "R7M2QX9A", reason: "injured", waitSeconds: DEFAULT_WAIT_SECONDS });
    expect(parseRefundArgs(["order", "K7M2QX9A", "--amount", "25.00", "--reason", "late", "--wait", "5"])).toEqual({ kind: "order", reference: "K7M2QX9A", amountCents: 2500, reason: "late", waitSeconds: 5 });
    expect(parseRefundArgs(["order", "K7M2QX9A", "--amount", "$7.5", "--reason", "x"])).toMatchObject({ amountCents: 750 });
  });

  it("takes dollars with at most two decimals, above zero", () => {
    expect(parseDollars("25")).toBe(2500);
    expect(parseDollars("25.5")).toBe(2550);
    expect(parseDollars("0.01")).toBe(1);
    for (const bad of ["0", "0.00", "25.001", "-5", "25,00", "1e3", "", "abc", "12345678"]) expect(parseDollars(bad), bad).toBeNull();
  });

  it("refuses bad input with one line", () => {
    const cases: [string[], string][] = [
      [[], "Name what: registration or order REFERENCE (see --help)."],
      [["team", "R1"], "Unknown kind team: registration or order (see --help)."],
      [["registration"], "Name the registration: its reference, e.g. R7M2QX9A."],
      [["registration", "--reason", "x"], "Name the registration: its reference, e.g. R7M2QX9A."],
      [["order", "K7M2 QX9A", "--reason", "x"], "K7M2 QX9A is not a reference (letters, digits and -)."],
      [["order", "K7M2QX9A"], 'Give the reason: --reason "..." (it is kept with the refund and sent to Stripe).'],
      [["order", "K7M2QX9A", "--reason", "x".repeat(501)], "--reason is at most 500 characters."],
      [["order", "K7M2QX9A", "--amount", "0", "--reason", "x"], "--amount is dollars and cents above zero, e.g. 25.00, not 0."],
      [["order", "K7M2QX9A", "--amount", "25.001", "--reason", "x"], "--amount is dollars and cents above zero, e.g. 25.00, not 25.001."],
      [["order", "K7M2QX9A", "--reason", "x", "extra"], "Unexpected argument extra (see --help)."],
      [["order", "K7M2QX9A", "--reason", "x", "--force", "1"], "Unknown option --force (see --help)."],
    ];
    for (const [argv, error] of cases) expect(refused(parseRefundArgs(argv)), argv.join(" ")).toBe(error);
  });

  it("names one request per payment, amount and reason: the same command twice is the same refund", () => {
    const key = operatorRefundKey(7, 2500, "late");
    expect(key).toMatch(/^operator:refund:7:2500:[0-9a-f]{16}$/);
    expect(operatorRefundKey(7, 2500, "late")).toBe(key);
    expect(operatorRefundKey(7, 2500, "late again")).not.toBe(key);
    expect(operatorRefundKey(7, undefined, "late")).toMatch(/^operator:refund:7:rest:/);
    expect(operatorRefundKey(8, 2500, "late")).not.toBe(key);
    expect(key.length).toBeLessThanOrEqual(191);
  });
});

describe("npm run resend -- ...", () => {
  it("reads the kind and the reference, nothing else", () => {
    expect(parseResendArgs(["order", "k7m2qx9a"])).toEqual({ kind: "order", reference: "K7M2QX9A" });
    expect(parseResendArgs(["-h"])).toEqual({ help: true });
    expect(refused(parseResendArgs(["registration"]))).toBe("Name the registration: its reference, e.g. R7M2QX9A.");
    expect(refused(parseResendArgs(["registration", "R1", "--to", "x@example.com"]))).toBe("resend takes no argument --to (see --help).");
  });
});

describe("review list", () => {
  it("says how long a payment has waited", () => {
    const now = new Date("2027-03-01T12:00:00Z");
    expect(ageText(new Date("2027-03-01T11:15:00Z"), now)).toBe("45 min");
    expect(ageText(new Date("2027-03-01T07:00:00Z"), now)).toBe("5 h");
    expect(ageText(new Date("2027-02-26T12:00:00Z"), now)).toBe("3 d");
  });
});
