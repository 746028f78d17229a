import { Widget } from "../components/Widget.tsx";
import { Field, Form, FormErrors, stateField, SubmitButton } from "../../components/Form.tsx";
import type { FormState } from "../../src/shared/forms.ts";

export function TestPage({ form }: { form: FormState }) {
  return (
    <section className="section">
      <div className="container">
        <h1>Test fixture</h1>
        <Widget name="TestCounter" props={{ start: 3, label: "Counter" }} />
        <Form action="/__test/form" label="Test form">
          <FormErrors errors={form.errors} focus />
          <Field {...stateField(form, "name")} label="Name" required />
          <SubmitButton>Save</SubmitButton>
        </Form>
      </div>
    </section>
  );
}
