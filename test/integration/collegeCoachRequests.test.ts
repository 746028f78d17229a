import fs from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { createLogger } from "../../src/logger.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app.ts";
import { executableScripts, textOf, visitor as firstVisit } from "../support/http.ts";
import { LOGO_MAX_BYTES } from "../../src/shared/collegeCoachRequests/rules.ts";
import { readStoredFile } from "../../src/db/storedFiles.ts";
import { moveClock, resetClock } from "../../src/clock.ts";
import { coachRequestRoutes } from "../../src/collegeCoachRequests/routes.tsx";
import { UNREADABLE, UPLOADS_BUSY } from "../../src/collegeCoachRequests/routes/logoUpload.ts";

let t: TestApp;
/** Event 3's days as the event data gives them (never typed here: the season moves by migration). */
let days: { id: number; date: string; label: string }[];

// One proxy hop is trusted so each visitor comes from its own address (the rate limit counts per address).
const ENV = { TRUST_PROXY_HOPS: "1" };
beforeAll(async () => {
  t = await createTestApp(ENV);
  days = (await request(t.app).get("/api/events/3").expect(200)).body.days;
});
afterAll(async () => {
  await t.close();
});

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n");
/** A logo of exactly `size` bytes that starts like a PNG. */
const pngOfSize = (size: number) => Buffer.concat([PNG.subarray(0, 8), Buffer.alloc(size - 8, 0x20)]);

const valid = () => ({
  fullName: "Dana Reyes",
  title: "Head Coach",
  collegeName: "Ironwood University",
  email: "dana.reyes@ironwood.example.edu",
  cellPhone: "(817) 555-0134",
  schoolPhone: "817-555-0100",
  schoolWebsite: "athletics.ironwood.example.edu",
  divisionLevel: "D1",
  conference: "Big 12",
  numberOfAthletes: 12,
  areasOfInterest: ["Lightweight (125-141 lbs)", "Open to All Weight Classes"],
  daysAttending: [days[0]!.date],
  notes: "Arriving Thursday morning.",
  eventId: 3,
});

/** Each visitor comes from its own address (the rate limit counts per visitor; the app trusts one proxy hop). */
let lastAddress = 0;
async function visitor(app: TestApp["app"], firstPage: string) {
  const v = await firstVisit(app, firstPage);
  lastAddress += 1;
  v.agent.set("x-forwarded-for", `198.51.100.${lastAddress}`);
  return v;
}

type Fields = Record<string, string | number | string[] | null | undefined>;
const count = async (table: string) => Number(((await t.db(table).count({ n: "*" }).first()) as { n: number | string }).n);
const storedLogos = async () => ((await t.db("stored_files").pluck("name")) as string[]).sort();
const snapshot = async () => ({
  requests: await count("coach_requests"),
  days: await count("coach_request_days"),
  mail: await count("email_outbox"),
  logos: await count("stored_files"),
});

/** A multipart post as the browser sends the form: the token first, the logo last. */
function multipart(req: request.Test, fields: Fields, opts: { token?: string; logo?: { content: Buffer; filename: string; contentType: string } } = {}) {
  if (opts.token !== undefined) req.field("_csrf", opts.token);
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) req.field(name, String(v));
  }
  if (opts.logo) req.attach("schoolLogo", opts.logo.content, { filename: opts.logo.filename, contentType: opts.logo.contentType });
  return req;
}

describe("the button on the event pages", () => {
  it("shows 'College Coach Registration' on event 3 only, linking to the page and enhanced into the dialog", async () => {
    const clinic = await request(t.app).get("/events/3").expect(200);
    expect(clinic.text).toMatch(/<a class="btn btn-secondary btn-block" href="\/coach-registration\?eventId=3" aria-haspopup="dialog" data-coach-dialog-open="">College Coach Registration<\/a>/);
    expect(clinic.text).toContain('data-widget="CoachRequestDialog" data-load="interaction" data-trigger="[data-coach-dialog-open]"');
    // The dialog offers the event's own days, from the event data.
    for (const d of days) expect(clinic.text).toContain(`value="${d.date}"`);
    for (const id of [1, 2, 4]) {
      const other = await request(t.app).get(`/events/${id}`).expect(200);
      expect(other.text).not.toContain("College Coach Registration");
    }
  });
});

describe("GET /coach-registration", () => {
  it("shows the form without JavaScript: every field of the spec, the event's days, a multipart post with the token", async () => {
    const res = await request(t.app).get("/coach-registration?eventId=3").expect(200);
    const text = textOf(res.text);
    expect(res.text).toContain("<title>College Coach Registration | Ironside</title>");
    expect(text).toContain("Texas Recruiting Clinic");
    const form = /<form[^>]*aria-label="College Coach Registration"[^>]*>/.exec(res.text)?.[0] ?? "";
    expect(form).toContain('method="post"');
    expect(form).toContain('action="/coach-registration"');
    expect(form).toMatch(/enctype="multipart\/form-data"/i);
    for (const name of ["_csrf", "eventId", "fullName", "title", "collegeName", "email", "cellPhone", "schoolPhone", "schoolWebsite",
      "divisionLevel", "conference", "numberOfAthletes", "areasOfInterest", "daysAttending", "notes", "schoolLogo"]) {
      expect(res.text, name).toContain(`name="${name}"`);
    }
    for (const division of ["D1", "D2", "D3", "NAIA", "JUCO", "Other"]) expect(res.text).toContain(`<option value="${division}">${division}</option>`);
    for (const area of ["Lightweight (125-141 lbs)", "Middleweight (149-165 lbs)", "Heavyweight (174+ lbs)", "Open to All Weight Classes"]) {
      expect(text).toContain(area);
    }
    for (const d of days) {
      expect(res.text).toContain(`value="${d.date}"`);
      expect(text).toContain(d.label);
    }
    const file = /<input[^>]*type="file"[^>]*>/.exec(res.text)?.[0] ?? "";
    expect(file).toContain('name="schoolLogo"');
    expect(file).toMatch(/accept="[^"]*image\/jpeg,image\/png,image\/gif"/);
    expect(text).toContain("JPG, PNG or GIF, up to 5 MB.");
    expect(executableScripts(res.text)).toEqual([]);
  });

  it.each([
    ["", "The event you're looking for doesn't exist or has been removed."],
    ["?eventId=99", "The event you're looking for doesn't exist or has been removed."],
    ["?eventId=abc", "The event you're looking for doesn't exist or has been removed."],
    ["?eventId=1", "College coach registration is not offered for this event."],
  ])("answers 404 for /coach-registration%s", async (query, message) => {
    const res = await request(t.app).get(`/coach-registration${query}`).expect(404);
    expect(textOf(res.text)).toContain(message);
    expect(res.text).not.toContain('name="fullName"');
  });
});

describe("POST /api/clinician-request (JSON)", () => {
  it("refuses each missing or wrong field with the spec's exact message, storing nothing", async () => {
    const before = await snapshot();
    const cases: [Fields, string, string][] = [
      [{ fullName: "" }, "fullName", "Full name is required"],
      [{ fullName: undefined }, "fullName", "Full name is required"],
      [{ title: "  " }, "title", "Title/Position is required"],
      [{ collegeName: "" }, "collegeName", "College/University name is required"],
      [{ email: "" }, "email", "Email is required"],
      [{ email: "dana@" }, "email", "Valid email is required"],
      [{ cellPhone: "" }, "cellPhone", "Cell phone is required"],
      [{ divisionLevel: "" }, "divisionLevel", "Division level is required"],
      [{ divisionLevel: "D4" }, "divisionLevel", "Division level is required"],
      [{ conference: "" }, "conference", "Conference is required"],
      [{ daysAttending: [] }, "daysAttending", "At least one day must be selected"],
      [{ daysAttending: undefined }, "daysAttending", "At least one day must be selected"],
      [{ daysAttending: ["2025-06-05"] }, "daysAttending", "Please choose from this event's days"],
      [{ numberOfAthletes: 51 }, "numberOfAthletes", "Number of athletes must be a whole number from 0 to 50"],
      [{ numberOfAthletes: -1 }, "numberOfAthletes", "Number of athletes must be a whole number from 0 to 50"],
      [{ numberOfAthletes: 2.5 }, "numberOfAthletes", "Number of athletes must be a whole number from 0 to 50"],
      [{ cellPhone: "555-0134" }, "cellPhone", "Please enter a valid 10-digit phone number"],
      [{ schoolWebsite: "javascript:alert(1)" }, "schoolWebsite", "Please enter a valid website address, e.g. https://athletics.example.edu"],
      [{ areasOfInterest: ["Featherweight"] }, "areasOfInterest", "Please choose from the listed areas of interest"],
    ];
    for (const [change, field, message] of cases) {
      const v = await visitor(t.app, "/coach-registration?eventId=3");
      const res = await v.post("/api/clinician-request").send({ ...valid(), ...change }).expect(400);
      expect(res.body.fieldErrors[field], field).toBe(message);
      expect(res.body.error).toBe(message);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("stores the request for the opened event with its days, and queues the brand's e-mail and the coach's acknowledgement", async () => {
    const v = await visitor(t.app, "/events/3");
    const res = await v.post("/api/clinician-request").send({ ...valid(), numberOfAthletes: 50, daysAttending: days.map((d) => d.date) }).expect(201);
    expect(res.body).toMatchObject({ success: true });
    const row = await t.db("coach_requests").where({ id: res.body.id }).first();
    expect(row).toMatchObject({
      event_id: 3,
      full_name: "Dana Reyes",
      title: "Head Coach",
      college_name: "Ironwood University",
      email: "dana.reyes@ironwood.example.edu",
      cell_phone: "(817) 555-0134",
      school_phone: "817-555-0100",
      school_website: "https://athletics.ironwood.example.edu/",
      division_level: "D1",
      conference: "Big 12",
      number_of_athletes: 50,
      areas_of_interest: "Lightweight (125-141 lbs), Open to All Weight Classes",
      notes: "Arriving Thursday morning.",
      logo_file: null,
    });
    const dayRows = await t.db("coach_request_days").where({ coach_request_id: res.body.id }).orderBy("event_day_id");
    expect(dayRows.map((d) => Number(d.event_day_id))).toEqual(days.map((d) => d.id));

    const mail = await t.db("email_outbox").where({ reference: `coach_request:${res.body.id}` }).orderBy("id");
    expect(mail).toHaveLength(2);
    expect(mail[0]).toMatchObject({
      kind: "coach_request",
      to_address: t.config.mail.brandInbox,
      reply_to: "dana.reyes@ironwood.example.edu",
      subject: "College coach registration: Ironwood University for Texas Recruiting Clinic",
      attachments_json: null,
    });
    for (const d of days) expect(mail[0].text_body).toContain(d.label);
    expect(mail[1]).toMatchObject({
      kind: "coach_request_acknowledgement",
      to_address: "dana.reyes@ironwood.example.edu",
      subject: "We received your college coach registration for Texas Recruiting Clinic",
    });
    expect(mail[1].text_body).toContain("We'll review your application and get back to you soon.");
  });

  it("accepts the spec's own shape: null athletes, no optional fields", async () => {
    const v = await visitor(t.app, "/events/3");
    const { schoolPhone: _p, schoolWebsite: _w, notes: _n, areasOfInterest: _a, ...required } = valid();
    const res = await v.post("/api/clinician-request").send({ ...required, numberOfAthletes: null, eventId: "3" }).expect(201);
    const row = await t.db("coach_requests").where({ id: res.body.id }).first();
    expect(row).toMatchObject({ number_of_athletes: null, school_phone: null, school_website: null, notes: null, areas_of_interest: "" });
  });

  it("answers 404 for an unknown event or one without coach registration, and 409 once registration has closed", async () => {
    const v = await visitor(t.app, "/events/3");
    expect((await v.post("/api/clinician-request").send({ ...valid(), eventId: 99 }).expect(404)).body.error).toBe("Event not found");
    expect((await v.post("/api/clinician-request").send({ ...valid(), eventId: 1 }).expect(404)).body.error).toBe(
      "College coach registration is not offered for this event.",
    );
    expect((await v.post("/api/clinician-request").send({ ...valid(), eventId: undefined }).expect(404)).body.error).toBe("Event not found");
    const before = await snapshot();
    await t.db("events").where({ id: 3 }).update({ registration_closes_at: new Date(Date.now() - 60_000) });
    try {
      expect((await v.post("/api/clinician-request").send(valid()).expect(409)).body.error).toBe("College coach registration for this event is closed.");
      const page = await request(t.app).get("/coach-registration?eventId=3").expect(200);
      expect(textOf(page.text)).toContain("College coach registration for this event is closed.");
      expect(page.text).not.toContain('name="fullName"');
      const event = await request(t.app).get("/events/3").expect(200);
      expect(textOf(event.text)).toContain("College coach registration for this event is closed.");
      expect(event.text).not.toContain('data-widget="CoachRequestDialog"');
    } finally {
      await t.db("events").where({ id: 3 }).update({ registration_closes_at: null });
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("the site's clock (src/clock.ts)", () => {
  it("moved past the closing date, the page, the API and the event page all say closed", async () => {
    const v = await visitor(t.app, "/events/3");
    await t.db("events").where({ id: 3 }).update({ registration_closes_at: new Date(Date.now() + 86_400_000) });
    moveClock(2 * 86_400_000);
    try {
      expect((await v.post("/api/clinician-request").send(valid()).expect(409)).body.error).toBe("College coach registration for this event is closed.");
      expect(textOf((await request(t.app).get("/coach-registration?eventId=3").expect(200)).text)).toContain("College coach registration for this event is closed.");
      expect(textOf((await request(t.app).get("/events/3").expect(200)).text)).toContain("College coach registration for this event is closed.");
    } finally {
      resetClock();
      await t.db("events").where({ id: 3 }).update({ registration_closes_at: null });
    }
  });
});

describe("the school logo (multipart, to the API as the dialog sends it)", () => {
  it("accepts a PNG renamed .jpg as a PNG: a stored file with a random name, attached to the brand's e-mail", async () => {
    const v = await visitor(t.app, "/events/3");
    const before = await storedLogos();
    const res = await multipart(v.post("/api/clinician-request"), valid(), {
      logo: { content: PNG, filename: "logo.jpg", contentType: "image/jpeg" },
    }).expect(201);
    const row = await t.db("coach_requests").where({ id: res.body.id }).first();
    expect(row).toMatchObject({ logo_content_type: "image/png", logo_bytes: PNG.length, number_of_athletes: 12 });
    expect(row.logo_file).toMatch(/^[0-9a-f]{32}\.png$/);
    expect(await storedLogos()).toEqual([...before, row.logo_file].sort());
    expect(await readStoredFile(t.db, row.logo_file)).toEqual({ name: row.logo_file, contentType: "image/png", bytes: PNG.length, content: PNG });
    const days = await t.db("coach_request_days").where({ coach_request_id: res.body.id });
    expect(days).toHaveLength(1);

    // The uploaded file is never served back, under any likely address.
    for (const url of [`/uploads/coach-logos/${row.logo_file}`, `/coach-logos/${row.logo_file}`, `/var/uploads/coach-logos/${row.logo_file}`, `/${row.logo_file}`]) {
      await request(t.app).get(url).expect(404);
    }

    const brandMail = await t.db("email_outbox").where({ reference: `coach_request:${res.body.id}`, kind: "coach_request" }).first();
    expect(JSON.parse(brandMail.attachments_json)).toEqual([
      { filename: "ironwood-university-logo.png", contentType: "image/png", storedFile: row.logo_file },
    ]);
    await t.outbox.drain();
    const sent = await t.db("email_outbox").where({ reference: `coach_request:${res.body.id}` });
    expect(sent.map((m) => m.status)).toEqual(["sent", "sent"]);
    const files = fs.readdirSync(t.mailDir).map((f) => fs.readFileSync(path.join(t.mailDir, f), "utf8"));
    const brand = files.find((f) => f.includes("Subject: College coach registration: Ironwood University") && f.includes(`(#${res.body.id})`));
    expect(brand).toBeTruthy();
    expect(brand).toMatch(/Content-Type: image\/png; name="?ironwood-university-logo\.png/);
    expect(brand).toMatch(/Content-Disposition: attachment;\s+filename="?ironwood-university-logo\.png/);
    expect(brand).toContain(PNG.toString("base64").slice(0, 40));
    expect(files.some((f) => f.includes("To: dana.reyes@ironwood.example.edu") && f.includes("We received your college coach registration"))).toBe(true);
  });

  it("accepts a GIF and a JPEG by their first bytes, and a logo of exactly 5 MB", async () => {
    const v = await visitor(t.app, "/events/3");
    const gif = Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1");
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0xff, 0xd9]);
    for (const [content, type] of [[gif, "image/gif"], [jpeg, "image/jpeg"], [pngOfSize(LOGO_MAX_BYTES), "image/png"]] as const) {
      const res = await multipart(v.post("/api/clinician-request"), valid(), {
        logo: { content, filename: "logo.bin", contentType: "application/octet-stream" },
      }).expect(201);
      const row = await t.db("coach_requests").where({ id: res.body.id }).first();
      expect(row).toMatchObject({ logo_content_type: type, logo_bytes: content.length });
    }
  });

  it.each([
    ["a PDF renamed .png", PDF, "school-logo.png", "image/png", "School logo must be a JPG, PNG or GIF image"],
    ["an SVG", Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), "logo.svg", "image/svg+xml", "School logo must be a JPG, PNG or GIF image"],
    ["an empty file", Buffer.alloc(0), "logo.png", "image/png", "The school logo file is empty"],
    ["5 MB + 1 byte", pngOfSize(LOGO_MAX_BYTES + 1), "big.png", "image/png", "School logo must be 5 MB or smaller"],
  ])("refuses %s with a clear message, storing nothing", async (_label, content, filename, contentType, message) => {
    const v = await visitor(t.app, "/events/3");
    const before = await snapshot();
    const res = await multipart(v.post("/api/clinician-request"), valid(), { logo: { content, filename, contentType } }).expect(400);
    expect(res.body.fieldErrors).toEqual({ schoolLogo: message });
    expect(res.body.error).toBe(message);
    expect(await snapshot()).toEqual(before);
  });

  it("keeps no logo when the rest of the form is invalid", async () => {
    const v = await visitor(t.app, "/events/3");
    const before = await snapshot();
    const res = await multipart(v.post("/api/clinician-request"), { ...valid(), conference: "", daysAttending: [] }, {
      logo: { content: PNG, filename: "logo.png", contentType: "image/png" },
    }).expect(400);
    expect(res.body.fieldErrors).toEqual({ conference: "Conference is required", daysAttending: "At least one day must be selected" });
    expect(await snapshot()).toEqual(before);
  });

  it("refuses a second file or a file under another name", async () => {
    const v = await visitor(t.app, "/events/3");
    const before = await snapshot();
    const two = multipart(v.post("/api/clinician-request"), valid(), { logo: { content: PNG, filename: "a.png", contentType: "image/png" } });
    const res = await two.attach("schoolLogo", PNG, { filename: "b.png", contentType: "image/png" }).expect(400);
    expect(res.body.error).toBe("Please attach one school logo file (JPG, PNG or GIF)");
    const other = await multipart(v.post("/api/clinician-request"), valid()).attach("resume", PDF, { filename: "cv.pdf", contentType: "application/pdf" }).expect(400);
    expect(other.body.error).toBe("Please attach one school logo file (JPG, PNG or GIF)");
    expect(await snapshot()).toEqual(before);
  });

});

describe("a database failure while saving", () => {
  it("keeps no logo, answers JSON or re-shows the form with 'Submission Failed', and logs no address", async () => {
    const lines: string[] = [];
    const logger = createLogger("warn", new Writable({ write: (chunk: Buffer, _e, done) => { lines.push(chunk.toString()); done(); } }));
    const own = await createTestApp(ENV, { logger });
    try {
      const v = await visitor(own.app, "/coach-registration?eventId=3");
      await own.db.schema.renameTable("email_outbox", "email_outbox_away");
      const logo = { content: PNG, filename: "logo.png", contentType: "image/png" };
      try {
        const api = await multipart(v.post("/api/clinician-request"), valid(), { logo });
        expect(api.status).toBe(500);
        expect(api.body.error).toBeTruthy();
        const page = await multipart(v.agent.post("/coach-registration"), { ...valid(), fullName: "Kept Through Failure" }, { token: v.token, logo });
        expect(page.status).toBe(503);
        const text = textOf(page.text);
        expect(text).toContain("Submission Failed");
        expect(text).toContain("Please try again or contact us directly if the problem persists.");
        expect(page.text).toContain('value="Kept Through Failure"');
      } finally {
        await own.db.schema.renameTable("email_outbox_away", "email_outbox");
      }
      expect(await own.db("coach_requests")).toHaveLength(0);
      expect(await own.db("coach_request_days")).toHaveLength(0);
      expect(await own.db("stored_files")).toHaveLength(0);
      expect(lines.join("")).toContain("coach request could not be saved");
      expect(lines.filter((l) => l.includes("ironwood.example.edu"))).toEqual([]);
    } finally {
      await own.close();
    }
  });
});

describe("POST /coach-registration without JavaScript", () => {
  it("stores the request with its logo and returns to the event page with the success toast", async () => {
    const v = await visitor(t.app, "/coach-registration?eventId=3");
    const before = await snapshot();
    const res = await multipart(v.agent.post("/coach-registration"), { ...valid(), daysAttending: [days[1]!.date], fullName: "No Script Coach" }, {
      token: v.token,
      logo: { content: PNG, filename: "logo.png", contentType: "image/png" },
    }).expect(303);
    expect(res.headers.location).toBe("/events/3");
    const row = await t.db("coach_requests").where({ full_name: "No Script Coach" }).first();
    expect(row).toMatchObject({ event_id: 3, logo_content_type: "image/png" });
    const listed = await t.db("coach_request_list").where({ id: row.id }).first();
    expect(listed).toMatchObject({ event_title: "Texas Recruiting Clinic", full_name: "No Script Coach", college_name: "Ironwood University" });
    // The day in words, with its year, from the event's own date.
    const date = new Date(`${days[1]!.date}T00:00:00Z`);
    const words = date.toLocaleDateString("en-US", { weekday: "long", month: "long", day: "numeric", year: "numeric", timeZone: "UTC" });
    expect(listed.days_attending).toBe(words);
    const after = await snapshot();
    expect(after).toEqual({ requests: before.requests + 1, days: before.days + 1, mail: before.mail + 2, logos: before.logos + 1 });

    const page = await v.get("/events/3").expect(200);
    const text = textOf(page.text);
    expect(text).toContain("Registration Submitted Successfully");
    expect(text).toContain("Thank you for your interest! We'll review your application and get back to you soon.");
  });

  it("re-shows the form with every message, the values kept and the validation toast, storing nothing", async () => {
    const v = await visitor(t.app, "/coach-registration?eventId=3");
    const before = await snapshot();
    const res = await multipart(v.agent.post("/coach-registration"), {
      eventId: 3, fullName: "", title: "", collegeName: "Mesa Ridge College", email: "coach@", cellPhone: "", divisionLevel: "",
      conference: "", numberOfAthletes: "51", areasOfInterest: ["Heavyweight (174+ lbs)"], notes: "Kept note",
    }, { token: v.token, logo: { content: PNG, filename: "logo.png", contentType: "image/png" } }).expect(400);
    const text = textOf(res.text);
    for (const message of ["Full name is required", "Title/Position is required", "Valid email is required", "Cell phone is required",
      "Division level is required", "Conference is required", "At least one day must be selected",
      "Number of athletes must be a whole number from 0 to 50"]) {
      expect(text).toContain(message);
    }
    expect(text).toContain("Form Validation Error");
    expect(text).toContain("Please correct the highlighted fields");
    expect(text).toContain("Your logo was fine but is not kept while the form has errors: please attach it again.");
    expect(res.text).toContain('value="Mesa Ridge College"');
    expect(res.text).toContain('value="coach@"');
    expect(res.text).toContain(">Kept note</textarea>");
    expect(res.text).toContain('checked="" value="Heavyweight (174+ lbs)"');
    expect(res.text).toContain('aria-invalid="true"');
    expect(await snapshot()).toEqual(before);
  });

  it("says a logo over 5 MB is too large, keeping the other values", async () => {
    const v = await visitor(t.app, "/coach-registration?eventId=3");
    const before = await snapshot();
    const res = await multipart(v.agent.post("/coach-registration"), { ...valid(), fullName: "Big Logo Coach" }, {
      token: v.token,
      logo: { content: pngOfSize(LOGO_MAX_BYTES + 1), filename: "logo.png", contentType: "image/png" },
    }).expect(400);
    expect(textOf(res.text)).toContain("School logo must be 5 MB or smaller");
    expect(res.text).toContain('value="Big Logo Coach"');
    expect(await snapshot()).toEqual(before);
  });

  it("works as a plain urlencoded post too (no logo)", async () => {
    const v = await visitor(t.app, "/coach-registration?eventId=3");
    const { numberOfAthletes: _n, ...fields } = valid();
    await v.form("/coach-registration", { ...fields, eventId: "3", fullName: "Urlencoded Coach" }).expect(303);
    expect(await t.db("coach_requests").where({ full_name: "Urlencoded Coach" })).toHaveLength(1);
  });
});

describe("CSRF", () => {
  it("refuses both routes without the token, keeping no file and no row", async () => {
    const agent = request.agent(t.app).set("x-forwarded-for", "203.0.113.7");
    await agent.get("/coach-registration?eventId=3");
    const before = await snapshot();
    const logo = { content: PNG, filename: "logo.png", contentType: "image/png" };
    await multipart(agent.post("/coach-registration"), valid(), { logo }).expect(403);
    await multipart(agent.post("/coach-registration"), valid(), { logo, token: "forged" }).expect(403);
    await multipart(agent.post("/api/clinician-request"), valid(), { logo }).expect(403);
    await agent.post("/api/clinician-request").send(valid()).expect(403);
    await agent.post("/coach-registration").type("form").send({ ...valid(), daysAttending: days[0]!.date, numberOfAthletes: "1" }).expect(403);
    expect(await snapshot()).toEqual(before);
  });
});

describe("rate limit", () => {
  it("answers 429 once a visitor has posted 10 requests in 15 minutes, on both routes together", async () => {
    const own = await createTestApp(ENV);
    try {
      const v = await visitor(own.app, "/coach-registration?eventId=3");
      const statuses: number[] = [];
      for (let i = 0; i < 10; i += 1) statuses.push((await v.post("/api/clinician-request").send({ eventId: 3 })).status);
      expect(statuses).toEqual(Array(10).fill(400));
      const api = await v.post("/api/clinician-request").send({ ...valid(), eventId: 3 });
      expect(api.status).toBe(429);
      expect(api.body.error).toBe("Too many registrations from your connection. Please wait a few minutes and try again.");
      const form = await multipart(v.agent.post("/coach-registration"), valid(), { token: v.token });
      expect(form.status).toBe(429);
      expect(await own.db("coach_requests")).toHaveLength(0);
    } finally {
      await own.close();
    }
  });
});

describe("multipart bodies that cannot be read, forged or too many at once", () => {
  const BOUNDARY = "----coachform";
  const malformed: [string, string, string][] = [
    ["a NUL in a part header", `multipart/form-data; boundary=${BOUNDARY}`, `--${BOUNDARY}\r\nContent-Disposition: form-data; name="full\0Name"\r\n\r\nDana\r\n--${BOUNDARY}--\r\n`],
    ["a bad header line", `multipart/form-data; boundary=${BOUNDARY}`, `--${BOUNDARY}\r\nthis line is no header\r\n\r\nDana\r\n--${BOUNDARY}--\r\n`],
    ["no boundary", "multipart/form-data", `--${BOUNDARY}\r\nContent-Disposition: form-data; name="fullName"\r\n\r\nDana\r\n--${BOUNDARY}--\r\n`],
  ];
  for (const [label, contentType, body] of malformed) {
    it(`${label}: the form's 400 with its message on both routes, nothing stored, nothing logged as an error`, async () => {
      const lines: string[] = [];
      const logger = createLogger("warn", new Writable({ write: (chunk: Buffer, _e, done) => { lines.push(chunk.toString()); done(); } }));
      const app = (await import("../../src/app.ts")).createApp({ ...t, logger });
      const v = await visitor(app, "/coach-registration?eventId=3");
      const before = await snapshot();
      const api = await v.post("/api/clinician-request").set("content-type", contentType).set("accept", "application/json").send(body);
      expect(api.status).toBe(400);
      expect(api.body.error).toBe(UNREADABLE);
      const page = await v.post("/coach-registration").set("content-type", contentType).send(body);
      expect(page.status).toBe(400);
      expect(textOf(page.text)).toContain(UNREADABLE);
      expect(await snapshot()).toEqual(before);
      expect(lines.filter((l) => /"level":50/.test(l))).toEqual([]);
    });
  }

  it("refuses a forged post (bad token) as the logo's part begins: 403, no file kept", async () => {
    const v = await visitor(t.app, "/events/3");
    const before = await snapshot();
    const res = await multipart(v.agent.post("/api/clinician-request"), valid(), {
      token: "forged-token",
      logo: { content: pngOfSize(LOGO_MAX_BYTES), filename: "logo.png", contentType: "image/png" },
    }).set("accept", "application/json");
    expect(res.status).toBe(403);
    expect(await snapshot()).toEqual(before);
  });

  it("checks the token before the file: the check runs when the file part begins, with the fields sent before it", async () => {
    const seen: { token: unknown; bytesKept: number }[] = [];
    const { Router } = await import("express");
    const routes = coachRequestRoutes({
      db: t.db, site: (await import("../../src/shared/site.ts")).buildSite("Ironside"), outbox: t.outbox, brandInbox: "team@example.com",
      rateLimiter: () => Object.assign((_req: unknown, _res: unknown, next: () => void) => next(), { counters: [] }),
      now: () => new Date(),
      csrf: { valid: (req) => (seen.push({ token: (req.body as Record<string, unknown>)._csrf, bytesKept: req.file?.size ?? 0 }), false) },
    });
    const express = (await import("express")).default;
    const app = express();
    const after = Router();
    after.use((req, res) => res.status(200).json({ parsed: true, file: Boolean(req.file) }));
    app.use(routes.beforeCsrf, after);
    app.use(((err: { status?: number }, _req, res, _next) => res.status(err.status ?? 500).json({ refused: true })) as import("express").ErrorRequestHandler);
    const res = await multipart(request(app).post("/api/clinician-request"), { fullName: "Dana" }, {
      token: "sent-first",
      logo: { content: PNG, filename: "logo.png", contentType: "image/png" },
    });
    expect(res.status).toBe(403);
    expect(seen).toEqual([{ token: "sent-first", bytesKept: 0 }]);
  });

  it(`reads at most N bodies at once: the next one answers 503 '${UPLOADS_BUSY}' at once`, async () => {
    const http = await import("node:http");
    const routes = coachRequestRoutes({
      db: t.db, site: (await import("../../src/shared/site.ts")).buildSite("Ironside"), outbox: t.outbox, brandInbox: "team@example.com",
      rateLimiter: () => Object.assign((_req: unknown, _res: unknown, next: () => void) => next(), { counters: [] }),
      csrf: { valid: () => true },
      maxConcurrentUploads: 2,
      now: () => new Date(),
    });
    const express = (await import("express")).default;
    const app = express();
    app.use(routes.beforeCsrf, (_req: unknown, res: import("express").Response) => res.json({ ok: true }));
    app.use(((err: { status?: number; message: string }, _req, res, _next) => res.status(err.status ?? 500).json({ error: err.message })) as import("express").ErrorRequestHandler);
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const port = (server.address() as import("node:net").AddressInfo).port;
    const open = (): import("node:http").ClientRequest => {
      const req = http.request({ port, host: "127.0.0.1", method: "POST", path: "/api/clinician-request", headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}`, "content-length": "100000" } });
      req.on("error", () => {});
      req.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="fullName"\r\n\r\nDana\r\n`);
      return req;
    };
    const slow = [open(), open()];
    try {
      await new Promise((r) => setTimeout(r, 300));
      const third = await fetch(`http://127.0.0.1:${port}/api/clinician-request`, {
        method: "POST", headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` }, body: `--${BOUNDARY}--\r\n`,
      });
      expect(third.status).toBe(503);
      expect(third.headers.get("retry-after")).toBe("5");
      expect(await third.json()).toEqual({ error: UPLOADS_BUSY });
    } finally {
      for (const r of slow) r.destroy();
    }
    // Once those end, a body is read again.
    await new Promise((r) => setTimeout(r, 300));
    const later = await fetch(`http://127.0.0.1:${port}/api/clinician-request`, {
      method: "POST", headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` }, body: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="fullName"\r\n\r\nDana\r\n--${BOUNDARY}--\r\n`,
    });
    expect(later.status).toBe(200);
    server.close();
  });
});
