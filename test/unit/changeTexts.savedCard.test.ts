import { describe, expect, it } from "vitest";
import { savedCardParts } from "../../src/shared/registrations/changeTexts.ts";

describe("savedCardParts: the one-tap button's brand and last four from the server's card text", () => {
  it("reads the brand and the last four of 'Brand ending 1234 (expires MM/YYYY)'", () => {
    expect(savedCardParts("Visa ending 4242 (expires 12/2034)")).toEqual({ brand: "Visa", last4: "4242" });
    expect(savedCardParts("American express ending 0005 (expires 01/2030)")).toEqual({ brand: "American express", last4: "0005" });
  });
  it("gives null for any other wording, so the button shows the server's text as it is", () => {
    expect(savedCardParts("The card you paid the deposit with")).toBeNull();
    expect(savedCardParts("Visa ending 42")).toBeNull();
  });
});
