import { Widget } from "../components/Widget.tsx";
import { Form, FormErrors, TextField } from "../components/Form.tsx";
import type { FormState } from "../../src/http/forms.ts";

export function TestPage({ form }: { form: FormState }) {
  return (
    <section className="section">
      <div className="container">
        <h1>Test fixture</h1>
        <Widget name="TestCounter" props={{ start: 3, label: "Counter" }} />
        <Form action="/__test/form" label="Test form">
          <FormErrors state={form} />
          <TextField name="name" label="Name" state={form} required />
          <button className="btn btn-primary" type="submit">Save</button>
        </Form>
      </div>
    </section>
  );
}
