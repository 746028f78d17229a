import { describe, expect, it } from "vitest";
import { csvField, csvLine } from "../../src/cli/csv.ts";
import { defaultFileName, parseExportArgs } from "../../src/cli/exportArgs.ts";

describe("csvField", () => {
  it("quotes what needs it, doubles quotes, keeps numbers, and turns formula-like text into text", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField('say "hi", twice')).toBe('"say ""hi"", twice"');
    expect(csvField("two\r\nlines")).toBe('"two\r\nlines"');
    for (const start of ["=", "+", "-", "@", "\t", "\r"]) expect(csvField(`${start}1+1`).startsWith(`'${start}`) || csvField(`${start}1+1`).startsWith(`"'${start}`)).toBe(true);
    expect(csvField(-5)).toBe("-5");
    expect(csvField(null)).toBe("");
    expect(csvField(new Date("2027-01-02T03:04:05Z"))).toBe("2027-01-02T03:04:05.000Z");
    expect(csvLine(["a", 1, null])).toBe("a,1,\r\n");
  });
});

describe("parseExportArgs", () => {
  it("reads the options, names the file, and refuses what it does not know", () => {
    const cmd = parseExportArgs(["orders", "--from", "2027-01-01", "--to", "2027-01-31"]);
    expect(cmd).toEqual({ name: "orders", from: new Date("2027-01-01T00:00:00Z"), to: new Date("2027-02-01T00:00:00Z") });
    expect(defaultFileName(cmd as never)).toBe("orders-from-2027-01-01-to-2027-01-31.csv");
    expect(parseExportArgs(["registrations", "--event", "2", "--day", "2027-02-30"])).toEqual({ error: "--day must be a date YYYY-MM-DD, not 2027-02-30." });
    expect(parseExportArgs(["messages", "--event", "2"])).toEqual({ error: "messages takes no option --event (see --help)." });
    expect(parseExportArgs(["orders", "--from", "2027-02-01", "--to", "2027-01-01"])).toEqual({ error: "--from must be on or before --to." });
    expect(parseExportArgs(["registrations", "--event", "2", "--out", "-"])).toEqual({ name: "registrations", eventId: 2, out: "-" });
    expect(parseExportArgs(["--help"])).toEqual({ help: true });
  });
});
