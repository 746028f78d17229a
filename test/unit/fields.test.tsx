// The field kit's markup: label, hint and error wired to the control, the same in server forms and widgets.
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Choices, CsrfContext, Field, Form, FormErrors, stateField } from "../../components/Form.tsx";

const html = (node: React.ReactNode) => renderToStaticMarkup(<>{node}</>);
const attr = (markup: string, tag: string, name: string) => new RegExp(`<${tag}[^>]* ${name}="([^"]*)"`).exec(markup)?.[1];

describe("Field", () => {
  it("ties the label, the hint and the error to the control", () => {
    const out = html(<Field name="athletes.0.email" label="Email" type="email" value="x" error="Please enter a valid email address" hint="We send the receipt here" required />);
    const id = attr(out, "input", "id")!;
    expect(out).toContain(`<label for="${id}">Email<span aria-hidden="true"> *</span></label>`);
    expect(attr(out, "input", "name")).toBe("athletes[0][email]");
    expect(attr(out, "input", "aria-invalid")).toBe("true");
    expect(attr(out, "input", "aria-describedby")).toBe(`${id}-hint ${id}-error`);
    expect(out).toContain(`<p class="field-hint" id="${id}-hint">We send the receipt here</p>`);
    expect(out).toContain(`<p class="field-error" id="${id}-error">Please enter a valid email address</p>`);
    expect(out).toContain('class="field field-invalid"');
  });

  it("renders a textarea or a select with the same wiring, and nothing invalid without an error", () => {
    const area = html(<Field name="message" label="Message" multiline value="Hello" />);
    expect(area).toMatch(/<textarea [^>]*rows="6"[^>]*>Hello<\/textarea>/);
    expect(area).not.toContain("aria-invalid");
    const select = html(<Field name="qty" label="Quantity" options={["1-10", "11-25"]} placeholder="Select quantity" value="11-25" error="Choose one" />);
    expect(select).toContain('<option value="">Select quantity</option>');
    expect(select).toMatch(/<option value="11-25" selected="">11-25<\/option>/);
    expect(attr(select, "select", "aria-describedby")).toMatch(/-error$/);
  });

  it("takes a server form's kept value and error from its state", () => {
    const out = html(<Field {...stateField({ values: { name: "A" }, errors: { name: "Name must be at least 2 characters" } }, "name")} label="Name" />);
    expect(attr(out, "input", "value")).toBe("A");
    expect(out).toContain("Name must be at least 2 characters");
  });
});

describe("Choices", () => {
  it("checks the chosen boxes and describes the group by its error", () => {
    const out = html(<Choices name="needs" legend="Apparel Needs" type="checkbox" options={["Singlets", "Rashguards"]} value={["Rashguards"]} error="Please choose from the listed apparel needs" />);
    expect(out).toContain('<input type="checkbox" name="needs" checked="" value="Rashguards"/>');
    expect(out).toContain('<input type="checkbox" name="needs" value="Singlets"/>');
    expect(attr(out, "fieldset", "aria-describedby")).toMatch(/-error$/);
  });
});

describe("Form", () => {
  it("posts with the page's CSRF token and shows the summary only with errors", () => {
    const out = html(
      <CsrfContext value="tok">
        <Form action="/contact" label="Send us a message"><FormErrors errors={{}} /></Form>
      </CsrfContext>,
    );
    expect(attr(out, "form", "method")).toBe("post");
    expect(attr(out, "form", "action")).toBe("/contact");
    expect(out).toContain('<input type="hidden" name="_csrf" value="tok"/></form>');
    expect(out).not.toContain("form-errors");
    expect(html(<FormErrors errors={{ name: "x" }} />)).toContain("Please correct the highlighted fields.");
  });
});
