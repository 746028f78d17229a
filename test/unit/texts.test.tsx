import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { completeCount, countOf, deadlineText, heldText, declinedText, fieldLabel, missingBadge, momentText, refundLines, stampText, timeText } from "../../src/shared/texts.ts";
import { buildSite } from "../../src/shared/site.ts";
import type { EventDetail } from "../../src/shared/events/types.ts";
import type { Registration } from "../../src/registrations/core/registration.ts";
import { lateRegistrationRefundEmail, registrationConfirmationEmail, registrationRefundedEmail, teamRosterEmail } from "../../src/registrations/core/email.ts";
import { athleteWithdrawnEmail, changeRefundedEmail, familyLinkEmail, manageLinkEmail, registrationCanceledEmail, registrationChangedEmail } from "../../src/registrations/changes/email.ts";
import { orderConfirmationEmail, orderRefundedEmail } from "../../src/orders/email.ts";
import { CancelPage, ManagePage, type ManageView } from "../../views/pages/registration/ManagePage.tsx";
import { CancellationPolicyPage } from "../../views/pages/policies/CampPolicyPages.tsx";
import { RegistrationSeenElsewhere } from "../../views/pages/registration/RegisterPage.tsx";
import { FormErrors } from "../../components/Form.tsx";
import { cancellationPolicyLines } from "../../src/shared/registrations/changePolicy.ts";
import { CHANGE_TEXT } from "../../src/shared/registrations/changeTexts.ts";
import { NO_DEPOSIT } from "../../src/shared/registrations/deposits.ts";

const LA = "America/Los_Angeles";

describe("times as people read them, in the event's zone", () => {
  it("a deadline at midnight is the end of the day before, named in words", () => {
    // 2027-05-29 00:00 PDT: the freeze of the June 5 camp.
    expect(deadlineText(new Date("2027-05-29T07:00:00Z"), LA)).toBe("by the end of May 28 (Pacific time)");
    expect(deadlineText(new Date("2027-05-29T07:00:00Z"), LA, { year: true })).toBe("by the end of May 28, 2027 (Pacific time)");
    expect(deadlineText(new Date("2027-05-28T22:45:00Z"), LA)).toBe("by 3:45 PM on May 28 (Pacific time)");
    expect(deadlineText(new Date("2027-06-19T05:00:00Z"), "America/Chicago")).toBe("by the end of June 18 (Central time)");
  });

  it("a stamp carries the day in the event's zone (late on the 26th in Las Vegas is already the 27th in Alabama)", () => {
    const at = new Date("2026-11-27T06:30:00Z");
    expect(stampText(at, LA)).toBe("November 26, 2026 at 10:30 PM (Pacific time)");
    expect(stampText(at, "America/Chicago")).toBe("November 27, 2026 at 12:30 AM (Central time)");
    expect(timeText(at, LA)).toBe("10:30 PM (Pacific time)");
    expect(momentText(at, LA)).toBe("10:30 PM on November 26 (Pacific time)");
  });
});

describe("the site's phrases", () => {
  it("names fields, counts and badges one way", () => {
    expect(fieldLabel("emergencyContactPhone")).toBe("Emergency contact phone");
    expect(fieldLabel("tShirtSize")).toBe("T-shirt size");
    expect(fieldLabel("athletes.0.firstName")).toBe("Athlete 1 first name");
    expect(fieldLabel("athletes.2.parentPhoneNumber")).toBe("Athlete 3 parent phone number");
    expect(fieldLabel("guardianEmail")).toBe("Parent or guardian email");
    expect(completeCount(5, 7)).toBe("5 of 7 complete");
    expect(missingBadge([])).toBe("Complete");
    expect(missingBadge(["waiver and medical release"])).toBe("Missing: waiver and medical release");
    expect(missingBadge(["waiver", "medical release", "shirt size"])).toBe("Missing: waiver, medical release and shirt size");
    expect(countOf(1, "place")).toBe("1 place");
    expect(countOf(6, "place")).toBe("6 places");
    expect(heldText(false)).toBe("Your place is held for 30 minutes while you pay");
    expect(heldText(true)).toBe("Your team's places are held for 30 minutes while you pay");
  });

  it("says nothing was charged after a decline, once", () => {
    expect(declinedText("Your card was declined.")).toBe("Your card was declined. Nothing was charged.");
    expect(declinedText("Your bank could not confirm this payment, so nothing was charged. Try again.")).toBe("Your bank could not confirm this payment, so nothing was charged. Try again.");
  });

  it("lists refunds as the card shows them: one line per refund", () => {
    expect(refundLines([])).toEqual([]);
    expect(refundLines([29900])).toEqual(["On your card: one refund of $299.00."]);
    expect(refundLines([18000, 11900])).toEqual(["On your card: 2 separate refunds,", "- $180.00", "- $119.00"]);
  });
});

const site = buildSite("Ironside");
const event: EventDetail = {
  depositPolicy: NO_DEPOSIT,
  id: 2, title: "National Champ Camp", shortDescription: "", category: "Camp", dateText: "June 5-7, 2027",
  startDate: new Date("2027-06-05T00:00:00Z"), endDate: new Date("2027-06-07T00:00:00Z"), time: "9:00 AM - 4:00 PM", location: "Las Vegas, NV",
  image: "", cardOverlay: null, capacity: 200, ageGroup: "", ageLimits: { min: 10, max: 19 }, timeZone: LA, listed: true,
  registrationClosesAt: new Date("2027-06-05T07:00:00Z"), fullPriceCents: 29900, regularPriceCents: 29900, teamPriceCents: 19900, originalPriceCents: null,
  packages: [{ code: "2day", label: "2 Days", priceCents: 23800, dayCount: 2 }, { code: "full", label: "Full Event", priceCents: 29900, dayCount: 3 }],
  days: [{ id: 1, label: "Saturday, June 5", date: "2027-06-05" }, { id: 2, label: "Sunday, June 6", date: "2027-06-06" }, { id: 3, label: "Monday, June 7", date: "2027-06-07" }],
  collegeLogos: [], description: "", features: [], coaches: [],
};
const athlete = {
  position: 1, firstName: "Maya", lastName: "Ortiz", email: "maya@example.com", phone: "702-555-0100", grade: "7th", age: 12, gender: "Female", schoolName: "Desert Middle",
  clubName: null, shirtSize: "Small", emergencyContactName: "Ana Ortiz", emergencyContactPhone: "702-555-0199", specialRequirements: null, withdrawnAt: null, waiver: null,
};
const registration: Registration = {
  id: 1, reference: "REG-TEST1", eventId: 2, kind: "individual", teamName: null, status: "paid", places: 1, packageCode: "2day", packageLabel: "2 Days",
  listPriceCents: 23800, amountCents: 23800, amountPaidCents: 23800, contact: { firstName: "Maya", lastName: "Ortiz", email: "maya@example.com", phone: "702-555-0100" },
  guardian: { name: "Ana Ortiz", email: "ana.parent@example.com", phone: "702-555-0199" },
  formSessionId: "f".repeat(20), reservedUntil: null, createdAt: new Date("2026-11-27T06:30:00Z"), paidAt: new Date("2026-11-27T06:31:00Z"),
  athletes: [athlete], dayIds: [1, 3], version: 1, holderSession: null, amountRefundedCents: 0, withdrawnAt: null, withdrawalRefundCents: null,
  deposit: null,
};
const team: Registration = { ...registration, kind: "team", teamName: "Rivera WC", places: 5, guardian: null, contact: { firstName: "Dana", lastName: "Rivera", email: "coach@example.com", phone: "205-555-0142" } };
const at = new Date("2026-11-27T06:30:00Z");

/** Every e-mail the registrations and the shop send, rendered from fixtures. */
function everyEmail() {
  const order = {
    id: 1, reference: "ORD-1", status: "paid", customer: { firstName: "Jordan", lastName: "Burroughs", email: "jordan@example.com", phone: "" }, subtotalCents: 3200, shippingCents: 795, totalCents: 3995,
    shippingAddress: { name: "Jordan Burroughs", line1: "2100 1st Avenue North", line2: "", city: "Birmingham", state: "AL", zip: "35203" }, currency: "usd", cartFingerprint: "", checkoutKey: null,
    shopifyOrderId: null, shopifySyncStatus: "none", createdAt: at, paidAt: at, items: [{ id: 1, title: "Heavyweight Tee", variantTitle: "M / Black", quantity: 1, priceCents: 3200, lineTotalCents: 3200, selectedSize: "M", selectedColor: "Black" }],
  } as unknown as Parameters<typeof orderConfirmationEmail>[1];
  return [
    registrationConfirmationEmail(site, event, registration, undefined, "https://example.test/my-registration/x"),
    lateRegistrationRefundEmail(site, event, registration, 23800),
    registrationRefundedEmail(site, event, registration, [18000, 5800]),
    teamRosterEmail(site, event, team, undefined, "https://example.test/my-registration/y"),
    manageLinkEmail(site, event, registration, "https://example.test/my-registration/z"),
    familyLinkEmail(site, event, team, athlete, "https://example.test/my-registration/f", { until: deadlineText(new Date("2027-05-29T07:00:00Z"), LA), missing: ["waiver and medical release"], minor: true }),
    registrationChangedEmail(site, event, registration, ["shirt size"]),
    registrationCanceledEmail(site, event, registration, { cents: 29900, percent: 100, paidCents: 29900, parts: [18000, 11900] }, at),
    athleteWithdrawnEmail(site, event, team, athlete, at, true),
    changeRefundedEmail(site, event, registration, 6100),
    orderConfirmationEmail(site, order, "https://example.test/orders/t"),
    orderRefundedEmail(site, order, 3995, true),
  ];
}

/** The pages whose words the registrations share, rendered from fixtures. */
function everyPageText(): string {
  const view: ManageView = {
    base: "/my-registration/x", reference: "REG-TEST1", kind: "individual", title: "Maya Ortiz", statusLabel: "Paid", eventTitle: event.title, eventId: 2, dateText: event.dateText,
    hours: "9:00 AM - 4:00 PM PDT", location: event.location, packageLabel: "2 Days", days: event.days.map((d) => ({ id: d.id, label: d.label, attended: d.id !== 2 })), everyDay: false, dayCount: 2,
    athletes: [{ position: 1, name: "Maya Ortiz", detail: ["Grade 7th", "School: Desert Middle"], shirtSize: "Small", emergency: "Ana Ortiz, 702-555-0199", medical: "", active: true, waiverText: "", missing: [], guardian: "Ana Ortiz, ana.parent@example.com, 702-555-0199" }],
    familyLinks: false, amountPaidCents: 23800, amountRefundedCents: 0, canceledText: `Canceled on ${stampText(at, LA)}.`, phase: "open", changesUntil: deadlineText(new Date("2027-05-29T07:00:00Z"), LA),
    reason: "", canCancel: true, refundNowCents: 23800, refundNowPercent: 100, tierDeadlines: [{ percent: 100, until: deadlineText(new Date("2027-05-06T07:00:00Z"), LA) }], version: 1,
    downgrades: [], pending: null,
  };
  const cancel = { base: view.base, title: "Rivera WC", eventTitle: event.title, kind: "team" as const, version: 1, whole: { refundCents: 0, percent: 0, partCents: 99500 }, athletes: [], athlete: { refundCents: 0, partCents: 19900 }, teamMinimum: 5 };
  return [
    renderToStaticMarkup(<ManagePage view={view} form={{ values: {}, errors: { emergencyContactPhone: "Please enter a valid 10-digit phone number" } }} />),
    renderToStaticMarkup(<CancelPage view={cancel} />),
    renderToStaticMarkup(<CancellationPolicyPage site={site} />),
    renderToStaticMarkup(<RegistrationSeenElsewhere state="canceled" eventTitle={event.title} dateText={event.dateText} facts={[["Package", "2 Days"]]} />),
    ...cancellationPolicyLines(),
    ...Object.values(CHANGE_TEXT as Record<string, unknown>).filter((v): v is string => typeof v === "string"),
  ].join("\n");
}

describe("every e-mail and page says things one way", () => {
  const texts = [...everyEmail().map((m) => `${m.subject}\n${m.text}`), everyPageText()];

  it("spells cancel the US way everywhere (Canceled, canceling)", () => {
    for (const text of texts) expect(text).not.toMatch(/[Cc]ancell(ed|ing)/);
  });

  it("never writes a deadline as midnight of the next day, nor a zone's abbreviation for a deadline or a stamp", () => {
    for (const text of texts) {
      expect(text).not.toMatch(/12:00 AM/);
      // The daily hours keep the zone's short name ("9:00 AM - 4:00 PM PDT"); nothing else does.
      expect(text.replace(/\d{1,2}:\d{2} [AP]M - \d{1,2}:\d{2} [AP]M P[DS]T/g, "")).not.toMatch(/\b(PDT|PST|CDT|CST)\b/);
    }
  });

  it("greets an athlete under 18 through the parent or guardian, at their address", () => {
    const mails = everyEmail().filter((m) => m.reference === "registration:REG-TEST1" && m.to !== athlete.email);
    for (const m of mails.filter((m) => !m.kind.startsWith("registration_family") && m.kind !== "registration_athlete_withdrawn")) {
      if (m.to === "coach@example.com") continue;
      expect(m.to, m.kind).toBe("ana.parent@example.com");
      expect(m.text, m.kind).toMatch(/^Hi Ana,/);
    }
    expect(mails.length).toBeGreaterThan(5);
  });

  it("lists a refund over two payments as two lines, as the card shows them", () => {
    const canceled = everyEmail().find((m) => m.kind === "registration_canceled")!;
    expect(canceled.text).toContain("On your card: 2 separate refunds,\n- $180.00\n- $119.00");
    const refunded = everyEmail().find((m) => m.kind === "registration_refunded")!;
    expect(refunded.text).toContain("$238.00, has been refunded in full");
    expect(refunded.text).toContain("On your card: 2 separate refunds,\n- $180.00\n- $58.00");
  });

  it("links each field of an error summary by its words", () => {
    const html = renderToStaticMarkup(<FormErrors errors={{ emergencyContactPhone: "Please enter a valid 10-digit phone number" }} focus />);
    expect(html).toContain('autofocus=""');
    expect(html).toContain("Emergency contact phone: Please enter a valid 10-digit phone number");
  });
});
