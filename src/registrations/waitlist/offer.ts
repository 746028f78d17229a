import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { enqueueEmail } from "../../email/outbox.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { insertOfferedHold } from "../core/tables/holds.ts";
import { newReference } from "../core/holding.ts";
import { findPackage } from "../../shared/registrations/rules.ts";
import { TEAM_PACKAGE } from "../../shared/registrations/teamRules.ts";
import { offerFamilyPrice } from "../../shared/registrations/waitingList.ts";
import { newToken, setStatus, type Entry } from "./tables/entries.ts";
import { linkHold } from "./tables/rounds.ts";
import { offerEmail } from "./email.ts";
import type { WaitingListDeps } from "./deps.ts";

/** The entry's places held as pending registrations until the offer ends, its link made and e-mailed. */
export async function makeOffer(trx: Knex.Transaction, deps: WaitingListDeps, event: EventDetail, entry: Entry, now: Date): Promise<void> {
  const until = new Date(now.getTime() + deps.offerHours * 3_600_000);
  const { token, hash } = newToken();
  // Read under the event lock, so always true; should it not be, nothing of this round is kept.
  if (!(await setStatus(trx, entry.id, ["waiting"], "offered", now, { offer_token_hash: hash, offered_at: now, offered_until: until }))) {
    throw new Error(`waiting-list entry ${entry.id} changed during its offer round`);
  }
  // One registration of all its places: a team's, or a family's (an athlete and 1 to 3 siblings on one form, one payment).
  await linkHold(trx, entry.id, await insertOfferHold(trx, event, entry, until, now), 1);
  await enqueueEmail(trx, offerEmail(deps.site, event, entry, `${deps.publicUrl}/waiting-list/offer/${token}`, until));
  deps.logger.info({ eventId: event.id, entryId: entry.id, places: entry.places }, "waiting list: places offered");
}

/**
 * A pending registration holding the entry's places for the offer: its contact and package at today's price (a
 * family's with the sibling discount), no athletes yet (the registration or team form fills them in, on the same
 * row: its form id is the row's).
 */
async function insertOfferHold(trx: Knex.Transaction, event: EventDetail, entry: Entry, until: Date, now: Date): Promise<number> {
  const team = entry.kind === "team";
  const places = entry.places;
  const pkg = team ? undefined : findPackage(event, entry.packageCode);
  const priceCents = team ? event.teamPriceCents * places : offerFamilyPrice(event, pkg?.priceCents ?? 0, places);
  const everyDay = team || (pkg !== undefined && pkg.dayCount >= event.days.length);
  return insertOfferedHold(
    trx,
    {
      reference: newReference(),
      eventId: event.id,
      kind: entry.kind,
      teamName: entry.teamName,
      places,
      packageCode: team ? TEAM_PACKAGE.code : entry.packageCode,
      packageLabel: team ? TEAM_PACKAGE.label : (pkg?.label ?? entry.packageCode),
      priceCents,
      contact: entry.contact,
      // Random like a form's id (routes/shared.tsx): only the offer link's visitor is given it.
      formSessionId: randomBytes(16).toString("base64url"),
      reservedUntil: until,
      dayIds: everyDay ? event.days.map((d) => d.id) : [],
    },
    now,
  );
}
