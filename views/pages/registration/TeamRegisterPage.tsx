import type { ReactNode } from "react";
import { formatPrice } from "../../../src/shared/money.ts";
import { TEAM_TEXT } from "../../../src/shared/registrations/teamRules.ts";

export interface TeamHeaderEvent {
  id: number;
  title: string;
  dateText: string;
  location: string;
  description: string;
  regularPriceCents: number;
  teamPriceCents: number;
  savingsCents: number;
}

/** /team-register/{id}: the title, the event, the team price banner and the minimum, then the form (or why there is none). */
export function TeamRegisterPage({ event, children }: { event: TeamHeaderEvent; children: ReactNode }) {
  const paragraphs = event.description.split(/\n\s*\n/).filter((p) => p.trim() !== "");
  return (
    <section className="section registration-page team-page">
      <div className="container registration-container">
        <p className="back-link">
          <a href={`/events/${event.id}`}><span aria-hidden="true">←&nbsp;</span>Back to Event</a>
        </p>
        <header className="registration-header">
          <p className="eyebrow">Team Registration</p>
          <h1>{event.title}</h1>
          <p className="lead">{event.dateText} · {event.location}</p>
          {paragraphs.slice(0, 2).map((p, i) => <p key={i} className="team-description">{p}</p>)}
        </header>
        <div className="team-banner-box" role="note" aria-label="Team pricing">
          <p className="team-banner-price">
            <strong>{formatPrice(event.teamPriceCents)}</strong> per athlete
            {event.savingsCents > 0 ? <span className="muted"> instead of <s>{formatPrice(event.regularPriceCents)}</s></span> : null}
          </p>
          {event.savingsCents > 0 ? <p className="badge">Save {formatPrice(event.savingsCents)} per athlete</p> : null}
          <p className="team-minimum">{TEAM_TEXT.minimumNote}</p>
        </div>
        {children}
      </div>
    </section>
  );
}
