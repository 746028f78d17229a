import { DomainError } from "../errors.ts";
import type { EventDetail } from "../events/types.ts";
import { repriceOnRehold } from "../discounts/redemptions.ts";
import { holdRegistration, type HoldResult, type RegistrationDeps } from "../registration/individual.ts";
import * as repo from "../registration/repository.ts";
import type { Registration } from "../registration/repository.ts";
import { TEAM_TEXT, type TeamRegistration } from "./rules.ts";

/**
 * A coach's team: one pending registration holding one place per athlete at the event's team price (read under
 * the event lock, never from the browser), then its one PaymentIntent. Paying, the roster e-mail, the expiry
 * sweep and late payments are the registrations' own (individual.ts), for the whole team at once.
 */
export async function holdTeam(
  deps: RegistrationDeps,
  event: EventDetail,
  data: TeamRegistration,
  visitor: { owned: string[]; onHeld: (reference: string) => void; beforeIntent?: (registration: Registration) => Promise<void> },
): Promise<HoldResult> {
  const places = data.athletes.length;
  return holdRegistration(deps, event, {
    kind: "team",
    formSessionId: data.formSessionId,
    places,
    ...visitor,
    fullMessage: (left) => TEAM_TEXT.notEnoughPlaces(left, places),
    async write(trx, { existing, reference, now, reservedUntil }) {
      const row = await trx("events").where({ id: event.id }).first("team_price_cents");
      const teamPriceCents = Number(row?.team_price_cents);
      if (!Number.isInteger(teamPriceCents) || teamPriceCents <= 0) throw new DomainError("conflict", TEAM_TEXT.registrationErrorDefault);
      const hold: repo.TeamHold = { eventId: event.id, teamPriceCents, dayIds: event.days.map((d) => d.id), reservedUntil, data };
      if (existing) {
        const wasLive = existing.status === "pending_payment" && (existing.reservedUntil?.getTime() ?? 0) > now.getTime();
        await repo.updateTeam(trx, existing.id, hold, now);
        await repriceOnRehold(trx, existing.id, wasLive, teamPriceCents * places, now);
      } else await repo.insertTeam(trx, reference, hold, now);
    },
  });
}
