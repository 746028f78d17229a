import { describe, expect, it } from "vitest";
import { validate } from "../../src/shared/forms.ts";
import {
  APPAREL_NEEDS,
  CONTACT_MESSAGES,
  contactSchema,
  newsletterSchema,
  QUANTITY_OPTIONS,
  QUOTE_MESSAGES,
  quoteSchema,
} from "../../src/shared/inbox/schemas.ts";
import { contactEmail, newsletterEmail, quoteEmail } from "../../src/inbox/emails.ts";
import { contactFaq, SHIPPING, supportHoursText } from "../../src/shared/inbox/policies.ts";

const contact = { name: "Jordan Burroughs", email: "jordan@example.com", phone: "", subject: "Camp question", message: "Is there a weigh-in at the camp?" };

describe("contact rules", () => {
  it("accepts a valid message, trims it and drops a blank phone", () => {
    const r = validate(contactSchema, { ...contact, name: "  Jordan Burroughs  " });
    expect(r).toEqual({ ok: true, data: { name: "Jordan Burroughs", email: "jordan@example.com", subject: "Camp question", message: "Is there a weigh-in at the camp?" } });
  });

  it("gives the spec's message for each field, word for word", () => {
    const r = validate(contactSchema, { name: "J", email: "not-an-email", subject: "Q", message: "too short" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual({
      name: "Name must be at least 2 characters",
      email: "Please enter a valid email address",
      subject: "Subject must be at least 2 characters",
      message: "Message must be at least 10 characters",
    });
  });

  it("counts the minimum lengths after trimming, at the exact boundaries", () => {
    expect(validate(contactSchema, { ...contact, name: " J " }).ok).toBe(false);
    expect(validate(contactSchema, { ...contact, name: "Jo" }).ok).toBe(true);
    expect(validate(contactSchema, { ...contact, subject: "Hi" }).ok).toBe(true);
    expect(validate(contactSchema, { ...contact, message: "123456789" }).ok).toBe(false);
    expect(validate(contactSchema, { ...contact, message: "1234567890" }).ok).toBe(true);
  });

  it("answers missing fields with the same messages", () => {
    const r = validate(contactSchema, {});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.name).toBe(CONTACT_MESSAGES.name);
    if (!r.ok) expect(r.errors.email).toBe(CONTACT_MESSAGES.email);
  });

  it("keeps the spec's failure toast", () => {
    expect(CONTACT_MESSAGES.sendFailed).toEqual({ title: "Error sending message", description: "Please try again later or contact us directly by phone." });
  });
});

describe("quote rules", () => {
  const quote = { organization: "Magic City WC", contactName: "Coach Rivera", email: "coach@example.com" };

  it("requires the organization, contact name and e-mail with clear messages", () => {
    const r = validate(quoteSchema, {});
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toMatchObject({
      organization: QUOTE_MESSAGES.organization,
      contactName: QUOTE_MESSAGES.contactName,
      email: "Please enter a valid email address",
    });
  });

  it("reads one checkbox as a list, keeps the listed order and drops blank optional fields", () => {
    const one = validate(quoteSchema, { ...quote, apparelNeeds: "Rashguards", estimatedQuantity: "", phone: " " });
    expect(one).toEqual({ ok: true, data: { ...quote, apparelNeeds: ["Rashguards"] } });
    const many = validate(quoteSchema, { ...quote, apparelNeeds: ["Other", "Competition Singlets"], estimatedQuantity: "26-50" });
    expect(many.ok && many.data.apparelNeeds).toEqual(["Competition Singlets", "Other"]);
    expect(many.ok && many.data.estimatedQuantity).toBe("26-50");
  });

  it("refuses needs and quantities that are not offered", () => {
    const r = validate(quoteSchema, { ...quote, apparelNeeds: ["Capes"], estimatedQuantity: "1000" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors["apparelNeeds.0"]).toBe(QUOTE_MESSAGES.apparelNeeds);
    expect(r.errors.estimatedQuantity).toBe(QUOTE_MESSAGES.estimatedQuantity);
  });

  it("offers the spec's needs and quantity options", () => {
    expect(APPAREL_NEEDS).toEqual(["Competition Singlets", "Rashguards", "Team Warmups", "Casual Team Apparel", "Complete Team Package", "Other"]);
    expect(QUANTITY_OPTIONS).toEqual(["1-10", "11-25", "26-50", "51-100", "100+"]);
  });
});

describe("newsletter rules", () => {
  it("needs a valid e-mail", () => {
    expect(validate(newsletterSchema, { email: " fan@example.com " })).toEqual({ ok: true, data: { email: "fan@example.com" } });
    const r = validate(newsletterSchema, { email: "fan@" });
    expect(!r.ok && r.errors.email).toBe("Please enter a valid email address");
  });
});

describe("e-mails to the brand", () => {
  it("addresses the contact message to the brand inbox, replying to the sender", () => {
    const mail = contactEmail(7, { ...contact, phone: "205-555-0100" }, "inbox@brand.test");
    expect(mail).toMatchObject({ kind: "contact_message", reference: "contact_message:7", to: "inbox@brand.test", replyTo: "jordan@example.com", subject: "Contact form: Camp question" });
    expect(mail.text).toContain("Name: Jordan Burroughs");
    expect(mail.text).toContain("Phone: 205-555-0100");
    expect(mail.text).toContain("Is there a weigh-in at the camp?");
  });

  it("lists the quote's needs, quantity and the design it should resemble", () => {
    const mail = quoteEmail(3, { organization: "Lone Star Grapplers", contactName: "Coach Diaz", email: "diaz@example.com", apparelNeeds: ["Rashguards", "Team Warmups"], estimatedQuantity: "11-25", referenceDesign: "Lone Star Grapplers Warmup", phone: undefined, details: undefined }, "inbox@brand.test");
    expect(mail.subject).toBe("Custom quote request: Lone Star Grapplers");
    expect(mail.replyTo).toBe("diaz@example.com");
    expect(mail.text).toContain("Apparel needs: Rashguards, Team Warmups");
    expect(mail.text).toContain("Estimated quantity: 11-25");
    expect(mail.text).toContain("Similar to design: Lone Star Grapplers Warmup");
    expect(mail.text).toContain("Phone: (not given)");
  });

  it("announces a new subscriber", () => {
    const mail = newsletterEmail(9, { email: "fan@example.com" }, "home", "inbox@brand.test");
    expect(mail).toMatchObject({ kind: "newsletter_subscriber", to: "inbox@brand.test", subject: "New newsletter subscriber: fan@example.com" });
  });
});

describe("contact FAQ", () => {
  it("answers from the business constants", () => {
    const text = contactFaq().map((f) => `${f.question} ${f.answer}`).join(" ");
    expect(SHIPPING.freeOverCents).toBe(7500);
    expect(text).toContain("Orders over $75 ship free and arrive in 2-3 business days");
    expect(text).toContain("Standard shipping takes 3-5 business days in the continental US");
    expect(text).toContain("30 days to return unworn, unwashed items in their original packaging");
    expect(text).toContain("custom team orders are final sale unless defective");
    expect(text).toContain("Custom team orders take 20-60 days");
    expect(text).toContain("plus about a week to ship");
    expect(supportHoursText()).toBe("Monday to Friday, 9am to 5pm EST");
  });
});
