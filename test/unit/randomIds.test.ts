import { describe, expect, it } from "vitest";
import { randomId } from "../../src/http/randomIds.ts";

describe("randomId", () => {
  it("hands out base64url ids of the asked size, never the same bytes twice, across refills of its pool", () => {
    const ids = Array.from({ length: 2_000 }, () => randomId(32));
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // 2,000 x 32 bytes is almost eight pools: ids from different pools are no more alike than any others.
    const halves = new Set(ids.map((id) => id.slice(0, 21)));
    expect(halves.size).toBe(ids.length);
    expect(randomId(24)).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });
});
