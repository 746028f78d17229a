import { afterEach, describe, expect, it, vi } from "vitest";
import { CARD_STATE_TEXT, RETURN_PATIENCE_MS, reportReturn } from "../../widgets/cardPayment.tsx";

afterEach(() => {
  vi.useRealTimers();
});

describe("the browser's return call after the card was charged", () => {
  it("says 'Payment received' at the first 5xx and keeps trying until the server answers", async () => {
    vi.useFakeTimers();
    let calls = 0;
    const told = vi.fn();
    const done = reportReturn(async () => {
      calls += 1;
      if (calls < 3) throw new Error("503: Payment system is temporarily unavailable");
      return { status: "paid" };
    }, told);
    await vi.runAllTimersAsync();
    await expect(done).resolves.toEqual({ status: "paid" });
    expect(told).toHaveBeenCalledTimes(1);
    expect(calls).toBe(3);
  });

  it("says it too when the call has not answered after its patience, once, and still takes the late answer", async () => {
    vi.useFakeTimers();
    const told = vi.fn();
    let answer: (v: { status: string }) => void = () => {};
    const done = reportReturn(() => new Promise<{ status: string }>((r) => (answer = r)), told);
    await vi.advanceTimersByTimeAsync(RETURN_PATIENCE_MS - 1);
    expect(told).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(told).toHaveBeenCalledTimes(1);
    answer({ status: "paid" });
    await expect(done).resolves.toEqual({ status: "paid" });
    expect(told).toHaveBeenCalledTimes(1);
  });

  it("reads the issue's words", () => {
    expect(CARD_STATE_TEXT.received.title).toBe("Payment received: we will e-mail your confirmation");
  });
});
