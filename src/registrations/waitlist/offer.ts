import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { enqueueEmail } from "../../email/outbox.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { insertOfferedHold } from "../core/tables/holds.ts";
import { newReference } from "../core/holding.ts";
import { findPackage } from "../../shared/registrations/rules.ts";
import { TEAM_PACKAGE } from "../../shared/registrations/teamRules.ts";
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
  // A team is one registration of all its places; an athlete and siblings are one registration each.
  const sizes = entry.kind === "team" ? [entry.places] : Array.from({ length: entry.places }, () => 1);
  for (const [i, size] of sizes.entries()) await linkHold(trx, entry.id, await insertOfferHold(trx, event, entry, size, until, now), i + 1);
  await enqueueEmail(trx, offerEmail(deps.site, event, entry, `${deps.publicUrl}/waiting-list/offer/${token}`, until));
  deps.logger.info({ eventId: event.id, entryId: entry.id, places: entry.places }, "waiting list: places offered");
}

/**
 * A pending registration holding `places` for the offer: the entry's contact and package at today's price, no
 * athletes yet (the registration or team form fills them in, on the same row: its form id is the row's).
 */
async function insertOfferHold(trx: Knex.Transaction, event: EventDetail, entry: Entry, places: number, until: Date, now: Date): Promise<number> {
  const team = entry.kind === "team";
  const pkg = team ? undefined : findPackage(event, entry.packageCode);
  const priceCents = team ? event.teamPriceCents * places : (pkg?.priceCents ?? 0);
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
