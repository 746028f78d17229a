import type { TeamEventChoice } from "../../../src/shared/home/eventOffers.ts";
import { TeamEventChoices, TeamNotes } from "../../../components/TeamEventChoices.tsx";

/** The team event choice on a page of its own: where 'Register as Team' leads without JavaScript. */
export function TeamEventsPage({ events }: { events: TeamEventChoice[] }) {
  return (
    <>
      <section className="page-hero">
        <div className="container">
          <p className="eyebrow">Team registration</p>
          <h1 className="display">Choose Your Team Event</h1>
          <p className="lead">Team pricing for every athlete on your roster. Pick the event to start your team registration.</p>
        </div>
      </section>
      <section className="section">
        <div className="container team-events-page">
          <TeamEventChoices events={events} headingLevel={2} />
          <TeamNotes />
          <p><a href="/#signup-portal">Back to registration options</a></p>
        </div>
      </section>
    </>
  );
}
