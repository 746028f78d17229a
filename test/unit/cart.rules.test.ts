import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  acceptPrice,
  addItem,
  checkoutFigures,
  itemCount,
  lineProblem,
  problemMessage,
  quantityLimit,
  removeItem,
  removePaidLines,
  subtotalCents,
  updateQuantity,
  variantText,
  type SessionCartItem,
} from "../../src/shared/cart/rules.ts";
import { AddItemJson, CheckoutJson, CustomerInfo, validateCheckout } from "../../src/shared/cart/schemas.ts";
import { badgeText } from "../../src/shared/cart/badge.ts";
import { centsToDecimal, formatPrice } from "../../src/shared/money.ts";

const line = (productId: string, variantId: string, quantity: number, priceCents = 3200, selectedSize: string | null = null) => ({ productId, variantId, quantity, priceCents, selectedSize });

describe("cart rules", () => {
  it("adds: the same product and variant merge by adding quantities, others are appended", () => {
    let items: SessionCartItem[] = [];
    items = addItem(items, line("1", "a", 1), "l1", 1);
    items = addItem(items, line("1", "a", 2), "l2", 2);
    items = addItem(items, line("1", "b", 1), "l3", 3);
    items = addItem(items, line("2", "a", 1), "l4", 4);
    expect(items.map((i) => [i.id, i.quantity])).toEqual([["l1", 3], ["l3", 1], ["l4", 1]]);
    expect(items[0]!.updatedAt).toBe(2);
  });

  it("keeps two fallback sizes of one variant apart", () => {
    let items: SessionCartItem[] = [];
    items = addItem(items, line("1", "a", 1, 3200, "M"), "l1", 1);
    items = addItem(items, line("1", "a", 1, 3200, "L"), "l2", 1);
    expect(items).toHaveLength(2);
  });

  it("updates quantities and drops a line at 0 or below; removes; clears", () => {
    const items = addItem(addItem([], line("1", "a", 2), "l1", 0), line("2", "b", 1), "l2", 0);
    expect(updateQuantity(items, "l1", 5, 9).find((i) => i.id === "l1")).toMatchObject({ quantity: 5, updatedAt: 9 });
    expect(updateQuantity(items, "l1", 0, 9).map((i) => i.id)).toEqual(["l2"]);
    expect(updateQuantity(items, "l1", -3, 9).map((i) => i.id)).toEqual(["l2"]);
    expect(removeItem(items, "l2").map((i) => i.id)).toEqual(["l1"]);
    expect(removeItem(items, "nope")).toHaveLength(2);
    expect(acceptPrice(items, "l1", 3500, 5)[0]).toMatchObject({ priceCents: 3500 });
  });

  it("subtotal is the sum of price x quantity and itemCount the sum of quantities, whatever the lines", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ unitPriceCents: fc.integer({ min: 0, max: 100_000 }), quantity: fc.integer({ min: 1, max: 99 }) })), (lines) => {
        expect(subtotalCents(lines)).toBe(lines.reduce((s, l) => s + l.unitPriceCents * l.quantity, 0));
        expect(itemCount(lines)).toBe(lines.reduce((s, l) => s + l.quantity, 0));
      }),
    );
  });

  it("adding the same line n times is one line with the summed quantity", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 20 }), (qs) => {
        const items = qs.reduce<SessionCartItem[]>((acc, q, i) => addItem(acc, line("1", "a", q), `l${i}`, i), []);
        expect(items).toHaveLength(1);
        expect(items[0]!.quantity).toBe(qs.reduce((a, b) => a + b, 0));
      }),
    );
  });

  it("formats cents as the server cart's decimal string", () => {
    expect(centsToDecimal(0)).toBe("0.00");
    expect(centsToDecimal(3205)).toBe("32.05");
    expect(centsToDecimal(12400)).toBe("124.00");
  });

  it("flags lines that changed in the catalogue instead of charging the old price", () => {
    const item = addItem([], line("1", "a", 3, 3000), "l1", 0)[0]!;
    const ok = { priceCents: 3000, available: true, stock: 10, purchasable: true };
    expect(lineProblem(item, ok)).toBeNull();
    expect(lineProblem(item, null)).toEqual({ kind: "unavailable" });
    expect(lineProblem(item, { ...ok, purchasable: false })).toEqual({ kind: "unavailable" });
    expect(lineProblem(item, { ...ok, available: false })).toEqual({ kind: "out_of_stock" });
    expect(lineProblem(item, { ...ok, stock: 2 })).toEqual({ kind: "not_enough_stock", available: 2 });
    const changed = lineProblem(item, { ...ok, priceCents: 3500 })!;
    expect(changed).toEqual({ kind: "price_changed", fromCents: 3000, toCents: 3500 });
    expect(problemMessage("Tee", changed, formatPrice)).toBe("The price of Tee changed from $30.00 to $35.00. Please review it before paying.");
  });

  it("limits a line to the stock and to 99", () => {
    expect(quantityLimit(undefined)).toBe(99);
    expect(quantityLimit(3)).toBe(3);
    expect(quantityLimit(500)).toBe(99);
  });

  it("caps the header badges at 99+ and 9+", () => {
    expect(badgeText(100, 99)).toBe("99+");
    expect(badgeText(99, 99)).toBe("99");
    expect(badgeText(10, 9)).toBe("9+");
  });
});

describe("cart payloads", () => {
  it("reads only identity and quantity from a cart item; the price is not part of what is kept", () => {
    const parsed = AddItemJson.parse({ shopifyProductId: 1001, shopifyVariantId: "2001", quantity: "2", price: 0.01, productTitle: "x" });
    expect(parsed).toEqual({ shopifyProductId: "1001", shopifyVariantId: "2001", quantity: 2, selectedSize: null });
    expect(AddItemJson.parse({ shopifyProductId: "1", shopifyVariantId: "2" }).quantity).toBe(1);
  });

  it("validates checkout customer info: each field's own message, the spec's message once for the form", () => {
    const r = CustomerInfo.safeParse({ firstName: " ", lastName: "B", email: "a@b.co" });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toBe("Enter your first name");
    const checked = validateCheckout(CustomerInfo, { firstName: "", lastName: "", email: "a@b.co" });
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(checked.message).toBe("Please fill in all required fields.");
      expect(checked.errors).toEqual({ firstName: "Enter your first name", lastName: "Enter your last name", _form: "Please fill in all required fields." });
    }
    const badEmail = validateCheckout(CustomerInfo, { firstName: "A", lastName: "B", email: "nope" });
    expect(!badEmail.ok && badEmail.message).toBe("Please enter a valid email address");
    expect(CustomerInfo.parse({ firstName: "A", lastName: "B", email: " a@b.co " })).toEqual({ firstName: "A", lastName: "B", email: "a@b.co", phone: "" });
    expect(CheckoutJson.safeParse({ items: {}, customerInfo: { firstName: "A", lastName: "B", email: "a@b.co" } }).success).toBe(false);
  });
});

describe("removePaidLines", () => {
  const line = (id: string, variantId: string, quantity: number): SessionCartItem => ({
    id, productId: "1001", variantId, selectedSize: null, quantity, priceCents: 3200, addedAt: 1, updatedAt: 1,
  });
  const paid = (cartLineId: string | null, variantId: string, quantity: number) => ({ cartLineId, productId: "1001", variantId, quantity });

  it("takes out exactly the paid lines and quantities; later additions stay", () => {
    const cart = [line("a", "2001", 1), line("b", "2003", 3), line("c", "2101", 1)];
    expect(removePaidLines(cart, [paid("a", "2001", 1), paid("b", "2003", 1)])).toEqual([line("b", "2003", 2), line("c", "2101", 1)]);
  });

  it("matches by line id and variant, by variant alone for orders without line ids, and ignores lines already gone", () => {
    const cart = [line("a", "2001", 2), line("b", "2003", 1)];
    expect(removePaidLines(cart, [paid("x", "2001", 1)])).toEqual(cart);
    expect(removePaidLines(cart, [paid("a", "2003", 1)])).toEqual(cart);
    expect(removePaidLines(cart, [paid(null, "2003", 1), paid("gone", "2101", 4)])).toEqual([line("a", "2001", 2)]);
    expect(removePaidLines(cart, [paid("a", "2001", 5)])).toEqual([line("b", "2003", 1)]);
  });
});

describe("variantText", () => {
  it("says the variant once", () => {
    expect(variantText({ variantTitle: "M / Black", selectedSize: "M", selectedColor: "Black" })).toBe("Size: M · Color: Black");
    expect(variantText({ variantTitle: "Black", selectedSize: "M", selectedColor: null })).toBe("Black · Size: M");
    expect(variantText({ variantTitle: "Default Title", selectedSize: null, selectedColor: null })).toBe("");
    expect(variantText({ variantTitle: "One Size", selectedSize: null, selectedColor: null })).toBe("One Size");
  });
});

describe("checkoutFigures", () => {
  it("keeps the subtotal to the items, shipping on its own line and the total their sum", () => {
    expect(checkoutFigures(3200, 795)).toEqual({ subtotalCents: 3200, shippingCents: 795, totalCents: 3995 });
    expect(checkoutFigures(12400, 0)).toEqual({ subtotalCents: 12400, shippingCents: 0, totalCents: 12400 });
  });
  it("leaves shipping unknown (and out of the total) until the address is complete", () => {
    expect(checkoutFigures(3200, null)).toEqual({ subtotalCents: 3200, shippingCents: null, totalCents: 3200 });
  });
});
