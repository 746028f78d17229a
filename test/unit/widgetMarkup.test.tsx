import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { collectWidgets, forgetWidgetMarkup, Widget, WidgetCollector } from "../../views/components/Widget.tsx";
import { CsrfContext } from "../../components/Form.tsx";
import { islandComponents } from "../../widgets/islands.gen.ts";
import { formWidgetProps } from "../../src/shared/forms.ts";

const TOKEN_A = "token-a-0123456789abcdefghijklmnopqrstuvwxyz";
const TOKEN_B = "token-b-9876543210zyxwvutsrqponmlkjihgfedcba";

function page(token: string, name = ""): string {
  return collectWidgets(new WidgetCollector(islandComponents), () =>
    renderToStaticMarkup(
      <CsrfContext value={token}>
        <Widget name="ContactForm" props={{ ...formWidgetProps(token, { values: { name }, errors: {} }), supportHours: "Monday to Friday" }} />
      </CsrfContext>,
    ),
  );
}

describe("kept widget markup", () => {
  it("gives each visitor their own token, and the markup of the props it was given", () => {
    forgetWidgetMarkup();
    const first = page(TOKEN_A);
    const second = page(TOKEN_B);
    expect(first).toContain(TOKEN_A);
    expect(second).toContain(TOKEN_B);
    expect(second).not.toContain(TOKEN_A);
    // The same markup as a fresh render, token aside.
    forgetWidgetMarkup();
    expect(page(TOKEN_B)).toBe(second);
    expect(page(TOKEN_B, "Jordan")).toContain('value="Jordan"');
    expect(page(TOKEN_B)).not.toContain("Jordan");
  });
});
