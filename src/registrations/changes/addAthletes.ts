import { DomainError } from "../../errors.ts";
import { placesTakenNow } from "../core/lapse.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import type { TeamAthlete } from "../../shared/registrations/teamRules.ts";
import { changesOf } from "../core/tables/changes.ts";
import { teamPriceCents } from "../core/tables/eventTerms.ts";
import { placesHeldBy, type Holder } from "../core/tables/holds.ts";
import * as changesRepo from "./repository.ts";
import { HOLD_MINUTES, type RegistrationDeps } from "../core/deps.ts";
import { HOLD_TEXT } from "../core/holding.ts";
import { placesForSale } from "../waitlist/forSale.ts";
import { PERMIT, withRegistration } from "../core/withRegistration.ts";
import { addedAthletesCents, teamHasRoom } from "./rules.ts";
import { CHANGE_TEXT } from "../../shared/registrations/changeTexts.ts";
import { addedAthletesSplit } from "./addedAthletesSplit.ts";

/**
 * The coach adds athletes to a paid team before the freeze date. One transaction whose first statement locks the
 * event row decides on what it reads after that lock: the registration (locked next), the places taken (paid
 * registrations, live holds, and other teams' athletes being added), the waiting line (while anyone waits, free
 * places are the line's), the team's ceiling and the visitor's cap on places held unpaid. It writes a pending change
 * that HOLDS the new athletes' places for HOLD_MINUTES, priced at the event's team price per athlete as stored now.
 * The same athletes posted again get the same change (one PaymentIntent); other changes wait while one is pending.
 * The athletes join the team when the change's payment settles (manage/paidChanges.ts); unpaid, the sweep frees the places.
 */
export async function startAddAthletes(deps: RegistrationDeps, event: EventDetail, input: { reference: string; athletes: TeamAthlete[]; holder: Holder }): Promise<number> {
  const adding = input.athletes.length;
  const id = await withRegistration(deps, input.reference, { event, kind: "team", permit: PERMIT.open }, async ({ trx, now, eventRow, r }) => {
    const waiting = await changesOf(trx, r.id, ["pending", "needs_review"]);
    const wanted = JSON.stringify(input.athletes);
    const same = waiting.find((c) => c.status === "pending" && c.data.kind === "add_athletes" && JSON.stringify(c.data.athletes) === wanted && c.reservedUntil.getTime() > now.getTime());
    if (same) return same.id;
    if (waiting.length > 0) throw new DomainError("conflict", CHANGE_TEXT.pendingElsewhere);
    const active = r.athletes.filter((a) => a.withdrawnAt === null).length;
    if (!teamHasRoom(active, adding, deps.limits.maxTeamAthletes)) throw new DomainError("invalid", CHANGE_TEXT.teamFull(deps.limits.maxTeamAthletes));
    const perAthleteCents = await teamPriceCents(trx, event.id);
    const priceCents = addedAthletesCents(adding, perAthleteCents);
    if (priceCents === null) throw new DomainError("conflict", CHANGE_TEXT.noAthletes);
    const { amountCents, balanceCents } = addedAthletesSplit(r, eventRow, priceCents, adding, now);

    const free = Number(eventRow.capacity) - (await placesTakenNow(trx, event.id, eventRow, now));
    const left = await placesForSale(trx, event.id, free, now);
    if (left < adding) throw new DomainError("conflict", CHANGE_TEXT.notEnoughPlaces(Math.max(0, left), adding));
    const held = await placesHeldBy(trx, input.holder, now);
    const cap = deps.limits.maxHeldPlacesPerVisitor;
    if (held.session + adding > cap || held.address + adding > cap) throw new DomainError("conflict", HOLD_TEXT.visitorCap(cap));

    return changesRepo.insertChange(
      trx,
      {
        registrationId: r.id,
        eventId: event.id,
        data: { kind: "add_athletes", pricePerAthleteCents: perAthleteCents, athletes: input.athletes, ...(balanceCents > 0 ? { balanceCents } : {}) },
        places: adding,
        amountCents,
        pricedVersion: r.version,
        reservedUntil: new Date(now.getTime() + HOLD_MINUTES * 60_000),
        holder: input.holder,
      },
      now,
    );
  });
  deps.logger.info({ reference: input.reference, changeId: id, adding }, "athletes held for a paid team, waiting for their payment");
  return id;
}
