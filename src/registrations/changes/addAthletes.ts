import { DomainError } from "../../errors.ts";
import { toDepositPolicy } from "../../events/repository.ts";
import { toDate } from "../../db/rows.ts";
import { DEFAULT_TIME_ZONE } from "../../shared/events/rules.ts";
import { depositPlan } from "../../shared/registrations/deposits.ts";
import { toText } from "../../shared/toText.ts";
import { placesTakenNow } from "../core/lapse.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { validate, type FieldErrors } from "../../shared/forms.ts";
import { REGISTRATION_MESSAGES } from "../../shared/registrations/rules.ts";
import { ATHLETE_FIELDS, teamSchemaFor, teamValuesOf, type AthleteRow, type TeamAthlete } from "../../shared/registrations/teamRules.ts";
import type { Registration } from "../core/registration.ts";
import { changesOf } from "../core/tables/changes.ts";
import { teamPriceCents } from "../core/tables/eventTerms.ts";
import { teamOf } from "../core/tables/formHolds.ts";
import { placesHeldBy, type Holder } from "../core/tables/holds.ts";
import * as changesRepo from "./repository.ts";
import { HOLD_MINUTES, type RegistrationDeps } from "../core/deps.ts";
import { HOLD_TEXT } from "../core/holding.ts";
import { placesForSale } from "../waitlist/forSale.ts";
import { PERMIT, withRegistration } from "../core/withRegistration.ts";
import { addedAthletesCents, teamHasRoom } from "./rules.ts";
import { CHANGE_TEXT } from "../../shared/registrations/changeTexts.ts";

/** The new athletes' rows as posted (`athletes[0][firstName]`...): strings only, at most `max` rows. */
export function postedRows(body: Record<string, unknown>, max: number): AthleteRow[] {
  const raw = body.athletes;
  const list: unknown[] = Array.isArray(raw) ? raw : raw && typeof raw === "object" ? Object.entries(raw as Record<string, unknown>).filter(([k]) => /^\d{1,3}$/.test(k)).sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => v) : [];
  return list.slice(0, max).map((row) => {
    const r = (row && typeof row === "object" ? row : {}) as Record<string, unknown>;
    return Object.fromEntries(ATHLETE_FIELDS.map((f) => [f, typeof r[f] === "string" ? (r[f]).slice(0, 400) : ""])) as AthleteRow;
  });
}

/**
 * The coach's new athletes, checked by the team form's own schema and messages: the team as it stands with the new
 * rows after it, so every rule (ages for this event, shirt sizes, e-mails, lengths, the team's ceiling) is the
 * registration's. A row left wholly blank is ignored; a row partly filled needs every field. Errors come back under
 * the form's names (`athletes.0.email`, the new rows counted from 0).
 */
export function validateNewAthletes(event: EventDetail, r: Registration, rows: AthleteRow[]): { ok: true; athletes: TeamAthlete[] } | { ok: false; errors: FieldErrors } {
  const team = teamValuesOf(teamOf({ ...r, athletes: r.athletes.filter((a) => a.withdrawnAt === null) }));
  const errors: FieldErrors = {};
  const filled = rows.map((row, i) => ({ row, i })).filter(({ row }) => ATHLETE_FIELDS.some((f) => row[f].trim() !== ""));
  for (const { row, i } of filled) for (const f of ATHLETE_FIELDS) if (row[f].trim() === "") errors[`athletes.${i}.${f}`] = REGISTRATION_MESSAGES.required;
  if (filled.length === 0) errors.athletes = CHANGE_TEXT.noAthletes;
  const existing = team.athletes.length;
  const checked = validate(teamSchemaFor(event.ageLimits), { ...team, athletes: [...team.athletes, ...filled.map(({ row }) => row)] });
  if (!checked.ok) {
    for (const [k, v] of Object.entries(checked.errors)) {
      const m = /^athletes\.(\d+)\.(\w+)$/.exec(k);
      if (m && Number(m[1]) >= existing) errors[`athletes.${filled[Number(m[1]) - existing]!.i}.${m[2]}`] ??= v;
      else if (k === "athletes") errors.athletes ??= v;
    }
  }
  if (Object.keys(errors).length > 0 || !checked.ok) return { ok: false, errors };
  return { ok: true, athletes: checked.data.athletes.slice(existing) };
}

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

/**
 * What the new athletes cost now and what joins the balance. A team on a deposit plan whose balance is still to come
 * pays the event's deposit for them now (as its first athletes did) and the rest with its balance on the same due
 * date; a team paid in full, or once a deposit is no longer offered (too close to the due date), pays it all now.
 */
export function addedAthletesSplit(r: Registration, eventRow: Record<string, unknown>, priceCents: number, adding: number, now: Date): { amountCents: number; balanceCents: number } {
  if (r.status !== "deposit_paid" || !r.deposit || r.deposit.balanceDueAt.getTime() <= now.getTime()) return { amountCents: priceCents, balanceCents: 0 };
  const firstDay = { date: toDate(eventRow.start_date)!.toISOString().slice(0, 10), timeZone: toText(eventRow.time_zone ?? "") || DEFAULT_TIME_ZONE };
  const plan = depositPlan(toDepositPolicy(eventRow), priceCents, adding, firstDay, now);
  return plan ? { amountCents: plan.todayCents, balanceCents: plan.balanceCents } : { amountCents: priceCents, balanceCents: 0 };
}
