import { describe, expect, it } from "vitest";
import { parseEventsArgs } from "../../src/cli/eventsArgs.ts";
import { dateTextFor, eventRefusal, isTimeZone, type EditedEvent } from "../../src/shared/events/editing.ts";

/** `npm run events` arguments and the event schema the command checks a change with, before anything is read or written. */
const event: EditedEvent = {
  title: "National Champ Camp",
  startDate: "2027-06-05",
  endDate: "2027-06-07",
  dateText: "June 5-7, 2027",
  timeZone: "America/Los_Angeles",
  location: "Las Vegas, NV",
  siblingDiscount: { kind: "none", value: 0 },
  deposit: { kind: "fixed", value: 7500 },
  balanceDueDays: 14,
  capacity: 200,
  packages: [{ code: "full", label: "Full Camp (3 Days)", priceCents: 29900, dayCount: 3 }],
  teamPriceCents: 19900,
  registrationClosesOn: null,
  changesFreezeOn: null,
  listed: true,
};

describe("parseEventsArgs", () => {
  it("answers --help, list and show", () => {
    expect(parseEventsArgs(["--help"])).toEqual({ help: true });
    expect(parseEventsArgs(["update", "2", "-h"])).toEqual({ help: true });
    expect(parseEventsArgs(["list"])).toEqual({ command: "list" });
    expect(parseEventsArgs(["show", "2"])).toEqual({ command: "show", eventId: 2 });
  });

  it("reads an update's fields: dollars to integer cents, repeated packages, yes/no, none", () => {
    expect(parseEventsArgs(["update", "2", "--capacity", "80", "--package", "full=279", "--package", "1day=$119.5=One Day", "--team-price", "199.99", "--listed", "no", "--closes", "none", "--time-zone", "Europe/Paris"])).toEqual({
      command: "update",
      eventId: 2,
      changes: {
        capacity: 80,
        packages: [
          { code: "full", priceCents: 27900 },
          { code: "1day", priceCents: 11950, label: "One Day" },
        ],
        teamPriceCents: 19999,
        listed: false,
        registrationClosesOn: null,
        timeZone: "Europe/Paris",
      },
    });
  });

  it("reads the deposit policy and refuses one it cannot store", () => {
    expect(parseEventsArgs(["update", "2", "--deposit", "fixed=75.00", "--balance-due-days", "21"])).toMatchObject({ changes: { deposit: { kind: "fixed", value: 7500 }, balanceDueDays: 21 } });
    expect(parseEventsArgs(["update", "2", "--deposit", "percent=25"])).toMatchObject({ changes: { deposit: { kind: "percent", value: 25 } } });
    expect(parseEventsArgs(["update", "2", "--deposit", "none"])).toMatchObject({ changes: { deposit: { kind: "none", value: 0 } } });
    expect(parseEventsArgs(["update", "2", "--deposit", "half"])).toEqual({ error: "The deposit is none, fixed=DOLLARS (per athlete, e.g. fixed=75.00) or percent=1 to 99, not half." });
    expect(parseEventsArgs(["update", "2", "--deposit", "percent=100"])).toMatchObject({ error: expect.stringContaining("The deposit is none") });
    expect(parseEventsArgs(["update", "2", "--balance-due-days", "400"])).toEqual({ error: "The balance is due a whole number of days (0 to 365) before the first day." });
  });

  it("reads a create with the event it copies", () => {
    const cmd = parseEventsArgs(["create", "--like", "1", "--title", "Fall Clinic", "--start", "2027-10-09", "--end", "2027-10-10", "--location", "Omaha, NE", "--capacity", "40", "--package", "full=199"]);
    expect(cmd).toMatchObject({ command: "create", likeEventId: 1, changes: { title: "Fall Clinic", startDate: "2027-10-09", capacity: 40, packages: [{ code: "full", priceCents: 19900 }] } });
  });

  it.each([
    [[], "Name a command: list, show, create or update (see --help)."],
    [["delete", "2"], "Unknown command delete: list, show, create or update (see --help)."],
    [["show"], "Name the event: its id, as list shows it (see --help)."],
    [["show", "two"], "An event id is a whole number, not two."],
    [["update", "2"], "Name what to change, e.g. --capacity 80 (see --help)."],
    [["update", "2", "--colour", "red"], "Unknown option --colour (see --help)."],
    [["update", "2", "--title"], "--title needs a value."],
    [["update", "2", "--title", "A", "--title", "B"], "--title is given twice."],
    [["update", "2", "--title", "  "], "The title cannot be empty."],
    [["update", "2", "--start", "2027-02-30"], "The start date is a date as YYYY-MM-DD, e.g. 2027-06-05."],
    [["update", "2", "--start", "06/05/2027"], "The start date is a date as YYYY-MM-DD, e.g. 2027-06-05."],
    [["update", "2", "--time-zone", "CST"], "The time zone is an IANA name such as America/Chicago."],
    [["update", "2", "--time-zone", "America/Atlantis"], "The time zone is an IANA name such as America/Chicago."],
    [["update", "2", "--capacity", "0"], "The capacity is a whole number from 1 to 100000."],
    [["update", "2", "--capacity", "100001"], "The capacity is a whole number from 1 to 100000."],
    [["update", "2", "--package", "3day=100"], "A package is CODE=PRICE with a code among full, 1day, 2day, singleDay, not 3day=100."],
    [["update", "2", "--package", "full=12.345"], "The full package's price is dollars and cents, e.g. 349.00."],
    [["update", "2", "--package", "full=0"], "The full package's price is above $0.00 and at most $100,000.00."],
    [["update", "2", "--package", "full=10", "--package", "full=20"], "Each package code is given once."],
    [["update", "2", "--team-price", "-5"], "The team price is dollars and cents, e.g. 349.00."],
    [["update", "2", "--team-price", "--listed"], "--team-price needs a value."],
    [["update", "2", "--listed", "maybe"], "--listed is yes or no, not maybe."],
    [["create", "--title", "X"], "Name the event to copy the rest from: --like EVENT_ID (see --help)."],
    [["create", "--like", "1", "--title", "X"], "create needs --start, --end, --location, --capacity, --package (see --help)."],
  ])("refuses %j with one line", (argv, error) => {
    expect(parseEventsArgs(argv)).toEqual({ error });
  });
});

describe("the event schema", () => {
  it("takes a consistent event", () => {
    expect(eventRefusal(event)).toBeNull();
    expect(eventRefusal({ ...event, registrationClosesOn: "2027-06-05", changesFreezeOn: "2027-06-05" })).toBeNull();
  });

  it.each([
    [{ endDate: "2027-06-04" }, "The end date 2027-06-04 is before the start date 2027-06-05."],
    [{ endDate: "2027-06-30" }, "An event runs at most 14 days; 2027-06-05 to 2027-06-30 is 26."],
    [{ registrationClosesOn: "2027-06-06" }, "Registration cannot close after the start: 2027-06-06 is after 2027-06-05."],
    [{ changesFreezeOn: "2027-06-06" }, "The freeze date 2027-06-06 is after the start date 2027-06-05."],
    [{ registrationClosesOn: "2027-06-01", changesFreezeOn: "2027-05-20" }, "The freeze date 2027-05-20 is before registration closes (2027-06-01): paid registrations could not change while others still register."],
    [{ dateText: "June 6-8, 2027" }, 'The date text "June 6-8, 2027" does not match 2027-06-05 to 2027-06-07 (e.g. "June 5-7, 2027"; leave --date-text out to have it written).'],
    [{ dateText: "June 5-7, 2026" }, 'The date text "June 5-7, 2026" does not match 2027-06-05 to 2027-06-07 (e.g. "June 5-7, 2027"; leave --date-text out to have it written).'],
    [{ packages: [{ code: "1day" as const, label: "1 Day", priceCents: 100, dayCount: 1 }] }, "An event needs a full package (its headline price): --package full=PRICE."],
    [{ endDate: "2027-06-05", dateText: "June 5, 2027", packages: [{ ...event.packages[0]!, dayCount: 1 }, { code: "2day" as const, label: "2 Days", priceCents: 100, dayCount: 2 }] }, "The 2day package is 2 days; the event has 1."],
  ])("refuses %j", (change, message) => {
    expect(eventRefusal({ ...event, ...change })).toBe(message);
  });

  it("writes the date text from the dates", () => {
    expect(dateTextFor("2027-06-05", "2027-06-07")).toBe("June 5-7, 2027");
    expect(dateTextFor("2027-06-30", "2027-07-02")).toBe("June 30 - July 2, 2027");
    expect(dateTextFor("2027-12-30", "2028-01-01")).toBe("December 30, 2027 - January 1, 2028");
    expect(dateTextFor("2027-06-05", "2027-06-05")).toBe("June 5, 2027");
  });

  it("takes the zones Intl knows", () => {
    expect(["America/Chicago", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "UTC"].map(isTimeZone)).toEqual([true, true, true, true]);
    expect(["CST", "Mars/Olympus", "", "America/Chicago; drop"].map(isTimeZone)).toEqual([false, false, false, false]);
  });
});
