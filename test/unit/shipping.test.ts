import { describe, expect, it } from "vitest";
import { addressLines, ShippingAddress, SHIPPING_TEXT, shippingCents } from "../../src/shared/orders/rules.ts";

const address = { name: "Jordan Mat", line1: "2100 1st Avenue North", line2: "", city: "Birmingham", state: "AL", zip: "35203" };

describe("shipping cost", () => {
  it("is free strictly over $75 and the flat rate at $75.00 and below", () => {
    expect(shippingCents(7501, 795)).toBe(0);
    expect(shippingCents(9600, 795)).toBe(0);
    expect(shippingCents(7500, 795)).toBe(795);
    expect(shippingCents(3200, 795)).toBe(795);
    expect(shippingCents(3200, 1200)).toBe(1200);
  });
});

describe("shipping address", () => {
  it("accepts a US address, trimmed, with an upper-case state", () => {
    const parsed = ShippingAddress.parse({ ...address, name: "  Jordan\n Mat ", state: "al", zip: "35203-1234" });
    expect(parsed).toEqual({ ...address, name: "Jordan Mat", zip: "35203-1234" });
    expect(addressLines(parsed)).toEqual(["Jordan Mat", "2100 1st Avenue North", "Birmingham, AL 35203-1234"]);
    expect(addressLines({ ...parsed, line2: "Suite 300" })[2]).toBe("Suite 300");
  });

  it("says what is missing or wrong, field by field", () => {
    const r = ShippingAddress.safeParse({ name: "", line1: " ", city: "", state: "ZZ", zip: "3520" });
    expect(r.success).toBe(false);
    const byField = Object.fromEntries(r.error!.issues.map((i) => [i.path.join("."), i.message]));
    expect(byField).toEqual({
      name: SHIPPING_TEXT.nameRequired,
      line1: SHIPPING_TEXT.line1Required,
      city: SHIPPING_TEXT.cityRequired,
      state: SHIPPING_TEXT.stateRequired,
      zip: SHIPPING_TEXT.zipInvalid,
    });
    expect(ShippingAddress.safeParse({ ...address, line1: "x".repeat(101) }).success).toBe(false);
    expect(ShippingAddress.safeParse({ ...address, zip: "ABCDE" }).success).toBe(false);
    expect(ShippingAddress.safeParse({}).success).toBe(false);
  });
});
