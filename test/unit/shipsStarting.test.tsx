import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { buildSite } from "../../src/shared/site.ts";
import { loadConfig, ConfigError } from "../../src/config.ts";
import { orderConfirmationEmail } from "../../src/orders/email.ts";
import type { Order } from "../../src/shared/orders/types.ts";
import { ShippingPolicyPage } from "../../views/pages/policies/PolicyPages.tsx";
import { shipsStartingNote } from "../../src/shared/catalogue/rules.ts";

const order = (paidAt: Date): Order => ({
  id: 1,
  reference: "AB12CD34",
  status: "paid",
  customer: { firstName: "Jordan", lastName: "Reyes", email: "jordan@example.com", phone: null },
  items: [],
  subtotalCents: 3200,
  shippingCents: 795,
  totalCents: 3995,
  shippingAddress: null,
  createdAt: paidAt,
  paidAt,
} as unknown as Order);

describe("the ships-starting day comes from configuration, with its year, and goes once past", () => {
  it("is read from SHIPS_STARTING_DATE and refused when it is not a date", () => {
    expect(loadConfig({}).shipsStartingDate).toBeNull();
    expect(loadConfig({ SHIPS_STARTING_DATE: "2027-06-25" }).shipsStartingDate).toBe("2027-06-25");
    expect(() => loadConfig({ SHIPS_STARTING_DATE: "June 25th" })).toThrowError(ConfigError);
  });

  it("is in the order e-mail while ahead, and gone after", () => {
    const site = buildSite("Ironside", { shipsStarting: "2027-06-25" });
    const before = orderConfirmationEmail(site, order(new Date("2026-11-24T15:00:00Z")), "https://example.com/o/x").text;
    expect(before).toContain("Caps and tees: ships starting June 25, 2027; other items ship in 3-5 business days.");
    const after = orderConfirmationEmail(site, order(new Date("2027-07-01T15:00:00Z")), "https://example.com/o/x").text;
    expect(after).not.toContain("June 25");
    expect(after).toContain("Your order ships in 3-5 business days.");
  });

  it("is on the shipping policy only while there is one", () => {
    const site = buildSite("Ironside", { shipsStarting: "2027-06-25" });
    const note = shipsStartingNote(site.shipsStarting, new Date("2026-11-24T15:00:00Z"));
    expect(renderToStaticMarkup(<ShippingPolicyPage site={site} flatRateCents={795} shipsLater={note} />)).toContain("Tees and caps marked &#x27;Ships starting June 25, 2027&#x27;");
    expect(renderToStaticMarkup(<ShippingPolicyPage site={site} flatRateCents={795} shipsLater={null} />)).not.toContain("Ships starting");
  });
});
