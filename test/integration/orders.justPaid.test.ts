/** The thank-you panel's "Follow your order" link: only the order this session just paid, else the not-found page. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { textOf, visitor } from "../support/http.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe("/orders/just-paid", () => {
  it("is the not-found page for a session that has paid nothing, and shows no order", async () => {
    const v = await visitor(t.app);
    const res = await v.get("/orders/just-paid");
    expect(res.status).toBe(404);
    expect(textOf(res.text)).not.toMatch(/Order [A-Z0-9]{6,}/);
  });
});
