import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { textOf, visitor } from "../support/http.ts";
import { loadAssets } from "../../src/http/assets.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const valid = { name: "Kyle Dake", email: "kyle@example.com", phone: "205-555-0100", subject: "Team order", message: "We need 30 singlets before the holiday tournament." };

const countRows = async (table: string) => Number(((await t.db(table).count({ n: "*" }).first()) as { n: number | string }).n);

describe("/contact page", () => {
  it("shows the hero, the three info columns, the form, the map and the FAQ from the business constants", async () => {
    const res = await request(t.app).get("/contact").expect(200);
    const text = textOf(res.text);
    expect(res.text).toContain("<title>Contact | Ironside</title>");
    expect(text).toContain("Get in Touch");
    for (const heading of ["Email", "Phone", "Mailing Address"]) expect(res.text).toContain(`<h2>${heading}</h2>`);
    expect(text).toContain("team@ironsidewrestling.com");
    expect(text).toContain("(205) 555-0142");
    expect(text).toContain("2100 1st Avenue North, Suite 300");
    const form = /<form[^>]*aria-label="Send us a message"[^>]*>/.exec(res.text)?.[0] ?? "";
    expect(form).toContain('action="/contact"');
    expect(form).toContain('method="post"');
    for (const name of ["name", "email", "phone", "subject", "message", "_csrf"]) expect(res.text).toContain(`name="${name}"`);
    expect(res.text).toContain(`src="${loadAssets().image("/images/contact/birmingham-map.svg")}"`);
    expect(res.text).not.toMatch(/<iframe/);
    expect(text).toContain("Frequently Asked Questions");
    expect(text).toContain("Orders over $75 ship free and arrive in 2-3 business days");
    expect(text).toContain("You have 30 days to return unworn, unwashed items");
    expect(text).toContain("Custom team orders take 20-60 days");
    expect(text).toContain("Monday to Friday, 9am to 5pm EST");
    expect(res.text).toContain('data-widget="ContactForm"');
  });
});

describe("POST /api/contact", () => {
  it("refuses each invalid field with the spec's message, 400, nothing stored or queued", async () => {
    const v = await visitor(t.app, "/contact");
    const before = { messages: await countRows("contact_messages"), mail: await countRows("email_outbox") };
    const cases: [Record<string, string>, string, string][] = [
      [{ ...valid, name: "K" }, "name", "Name must be at least 2 characters"],
      [{ ...valid, email: "kyle@" }, "email", "Please enter a valid email address"],
      [{ ...valid, subject: "?" }, "subject", "Subject must be at least 2 characters"],
      [{ ...valid, message: "Help pls" }, "message", "Message must be at least 10 characters"],
    ];
    for (const [body, field, message] of cases) {
      const res = await v.post("/api/contact").send(body).expect(400);
      expect(res.body.error).toBe(message);
      expect(res.body.fieldErrors[field]).toBe(message);
    }
    expect(await countRows("contact_messages")).toBe(before.messages);
    expect(await countRows("email_outbox")).toBe(before.mail);
  });

  it("stores a valid message and e-mails it to the brand inbox through the outbox", async () => {
    const v = await visitor(t.app, "/contact");
    const res = await v.post("/api/contact").send({ ...valid, subject: "API message" }).expect(201);
    expect(res.body).toMatchObject({ success: true });
    const row = await t.db("contact_messages").where({ id: res.body.id }).first();
    expect(row).toMatchObject({ name: "Kyle Dake", email: "kyle@example.com", phone: "205-555-0100", subject: "API message", message: valid.message });
    const mail = await t.db("email_outbox").where({ reference: `contact_message:${res.body.id}` }).first();
    expect(mail).toMatchObject({ kind: "contact_message", to_address: t.config.mail.brandInbox, reply_to: "kyle@example.com", subject: "Contact form: API message" });
    await t.outbox.drain();
    expect((await t.db("email_outbox").where({ id: mail.id }).first()).status).toBe("sent");
    const files = fs.readdirSync(t.mailDir).map((f) => fs.readFileSync(`${t.mailDir}/${f}`, "utf8"));
    expect(files.some((f) => f.includes("Subject: Contact form: API message") && f.includes("We need 30 singlets"))).toBe(true);
  });

  it("refuses a post without the CSRF token", async () => {
    const agent = request.agent(t.app);
    await agent.get("/contact");
    await agent.post("/api/contact").send(valid).expect(403);
  });
});

describe("POST /contact without JavaScript", () => {
  it("re-renders the form with the messages and the values kept, storing nothing", async () => {
    const v = await visitor(t.app, "/contact");
    const before = await countRows("contact_messages");
    const res = await v.form("/contact", { ...valid, name: "K", message: "short" }).expect(400);
    const text = textOf(res.text);
    expect(text).toContain("Name must be at least 2 characters");
    expect(text).toContain("Message must be at least 10 characters");
    expect(res.text).toContain('value="kyle@example.com"');
    expect(res.text).toContain('aria-invalid="true"');
    expect(await countRows("contact_messages")).toBe(before);
  });

  it("stores the message, queues its e-mail and shows the confirmation panel once", async () => {
    const v = await visitor(t.app, "/contact");
    const res = await v.form("/contact", { ...valid, subject: "Form message" }).expect(303);
    expect(res.headers.location).toBe("/contact");
    const row = await t.db("contact_messages").where({ subject: "Form message" }).first();
    expect(row).toBeTruthy();
    expect(await t.db("email_outbox").where({ reference: `contact_message:${row.id}` })).toHaveLength(1);
    const after = await v.get("/contact").expect(200);
    expect(textOf(after.text)).toContain("Message Sent!");
    expect(after.text).toContain('href="/contact">Send Another Message</a>');
    const again = await v.get("/contact");
    expect(textOf(again.text)).not.toContain("Message Sent!");
  });
});

describe("rate limit", () => {
  it("answers 429 once a visitor has posted too many messages", async () => {
    const own = await createTestApp();
    try {
      const v = await visitor(own.app, "/contact");
      const statuses: number[] = [];
      for (let i = 0; i < 22; i += 1) statuses.push((await v.post("/api/contact").send({ ...valid, name: "K" })).status);
      expect(statuses.slice(0, 20).every((s) => s === 400)).toBe(true);
      expect(statuses.slice(20)).toEqual([429, 429]);
      const limited = await v.form("/contact", valid);
      expect(limited.status).toBe(429);
      expect(await own.db("contact_messages")).toHaveLength(0);
    } finally {
      await own.close();
    }
  });
});
