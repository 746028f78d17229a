import type { TeamEventChoice } from "../src/shared/home/eventOffers.ts";
import { TEAM_MINIMUM_ATHLETES } from "../src/shared/home/eventOffers.ts";
import { formatPrice } from "../src/shared/money.ts";

/** The team events to choose from (the modal and the no-JavaScript /team-events page). Browser-safe. */
export function TeamEventChoices({ events, onChoose, headingLevel = 3 }: { events: TeamEventChoice[]; onChoose?: () => void; headingLevel?: 2 | 3 }) {
  const H = headingLevel === 2 ? "h2" : "h3";
  return (
    <ul className="team-choices">
      {events.map((e) => (
        <li key={e.id}>
          <a className="team-choice" href={`/team-registration?eventId=${e.id}`} onClick={onChoose} data-event-id={e.id}>
            <H className="team-choice-title">{e.title}</H>
            <span className="team-choice-meta">{e.dateText} · {e.location}</span>
            <span className="team-choice-prices">
              <span><span className="muted">Individual</span> <s className="price-old">{formatPrice(e.regularPriceCents)}</s></span>
              <span><span className="muted">Team price</span> <strong className="team-choice-price">{formatPrice(e.teamPriceCents)}</strong><span className="muted"> per athlete</span></span>
              <span className="badge">Save {formatPrice(e.savingsCents)} per athlete</span>
            </span>
          </a>
        </li>
      ))}
    </ul>
  );
}

export function TeamNotes() {
  return (
    <ul className="team-notes">
      <li>Minimum {TEAM_MINIMUM_ATHLETES} athletes for team pricing.</li>
      <li>All team members are registered under one payment.</li>
      <li>The team coach is the primary contact for the registration.</li>
    </ul>
  );
}
