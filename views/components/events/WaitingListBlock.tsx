import type { RegistrationStatus } from "../../../src/shared/events/rules.ts";

/** How many wait at the event, and (sold out) what joining the waiting list means, with the way to join. */
export function WaitingListBlock({ eventId, status, waiting }: { eventId: number; status: RegistrationStatus; waiting: { entries: number; places: number } }) {
  if (status !== "soldOut") return null;
  const line =
    waiting.entries === 0
      ? "Nobody is on the waiting list yet."
      : `${waiting.entries} ${waiting.entries === 1 ? "family or team is" : "families and teams are"} waiting for ${waiting.places} ${waiting.places === 1 ? "place" : "places"}.`;
  return (
    <div className="event-waiting-list">
      <p>{line}</p>
      <p className="muted">
        Join the waiting list: when places become free, we offer them in the order families and teams joined (the first whose places fit), hold them for you and e-mail you a link to register and pay.
      </p>
      <a className="btn btn-secondary" href={`/waiting-list/${eventId}`}>Join the Waiting List</a>
    </div>
  );
}
