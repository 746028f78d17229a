/**
 * `npm run events -- list|show|create|update`: events without SQL (see eventsArgs.ts for the options). Checked with
 * the site's event schema; bad input prints one line and changes nothing (exit 1); a change shows on every running
 * app instance at its next request (the events' version, src/events/version.ts).
 */
import { siblingDiscountText } from "../shared/registrations/siblings.ts";
import type { Db } from "../db/knex.ts";
import { formatPrice } from "../shared/money.ts";
import { createEvent, EventEditRefused, listEventsForOperator, showEventForOperator, updateEvent, type EventListing } from "../events/operatorEdits.ts";
import { EVENTS_USAGE, parseEventsArgs, type EventsCommand } from "./eventsArgs.ts";
import { isMain, OperatorError, runOperatorCommand } from "./operatorContext.ts";

const packagesText = (e: EventListing) => e.packages.map((p) => `${p.code} ${formatPrice(p.priceCents)}`).join(", ");

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((v, i) => v.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n");
}

function details(e: EventListing): string {
  return [
    `Event ${e.id}: ${e.title}${e.listed ? "" : " (not listed)"}`,
    `  dates: ${e.startDate} to ${e.endDate} (shown as "${e.dateText}"), time zone ${e.timeZone}`,
    `  location: ${e.location}`,
    `  capacity: ${e.capacity}`,
    ...e.packages.map((p) => `  package ${p.code}: ${formatPrice(p.priceCents)}, "${p.label}", ${p.dayCount} ${p.dayCount === 1 ? "day" : "days"}`),
    `  team price: ${formatPrice(e.teamPriceCents)} per athlete`,
    `  registration closes: ${e.registrationClosesOn ?? "at the start"}`,
    `  freeze date: ${e.changesFreezeOn ?? "7 days before the start"}`,
    `  deposit: ${depositText(e)}`,
    `  sibling discount: ${siblingDiscountText(e.siblingDiscount) ?? "none"}`,
  ].join("\n");
}

/** The deposit policy as the operator set it: "$75.00 per athlete, the balance due 14 days before the first day". */
function depositText(e: EventListing): string {
  if (e.deposit.kind === "none") return "none (pay in full only)";
  const what = e.deposit.kind === "fixed" ? `${formatPrice(e.deposit.value)} per athlete` : `${e.deposit.value}% (rounded to whole dollars per athlete)`;
  return `${what}, the balance due ${e.balanceDueDays} days before the first day`;
}

/** What the command prints; a refusal throws OperatorError with its one line, having changed nothing. */
export async function runEventsCommand(db: Db, cmd: EventsCommand, now: Date): Promise<string> {
  try {
    switch (cmd.command) {
      case "list": {
        const events = await listEventsForOperator(db);
        if (events.length === 0) return "No events yet. Create one with: npm run events -- create --like EVENT_ID ... (see --help)";
        const head = ["id", "title", "dates", "time zone", "location", "capacity", "packages", "listed"];
        return table([head, ...events.map((e) => [String(e.id), e.title, `${e.startDate} to ${e.endDate}`, e.timeZone, e.location, String(e.capacity), packagesText(e), e.listed ? "yes" : "no"])]);
      }
      case "show":
        return details(await showEventForOperator(db, cmd.eventId));
      case "create": {
        const created = await createEvent(db, cmd.likeEventId, cmd.changes, now);
        return `Created event ${created.id}.\n${details(created)}`;
      }
      case "update": {
        const { after, roundAsked } = await updateEvent(db, cmd.eventId, cmd.changes, now);
        return `Updated event ${after.id}.${roundAsked ? " The waiting list is offered the new places." : ""}\n${details(after)}`;
      }
    }
  } catch (err) {
    if (err instanceof EventEditRefused) throw new OperatorError(err.message);
    throw err;
  }
}

async function main(): Promise<number> {
  return runOperatorCommand(process.argv.slice(2), parseEventsArgs, EVENTS_USAGE, async ({ db, now }, cmd) => {
    console.log(await runEventsCommand(db, cmd, now()));
    return 0;
  });
}

if (isMain(import.meta.url)) process.exitCode = await main();
