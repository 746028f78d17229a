import { ReturningBox } from "../../../components/ReturningFamily.tsx";
import { RETURNING_TEXT, type ReturningFrom } from "../../../src/shared/registrations/returning.ts";

/** A "Registered before?" link opened a second time, late, or unknown: said plainly, with the way to ask again. */
export function ReturningLinkSpentPage({ ask }: { ask: { eventId: number; eventTitle: string; from: ReturningFrom } | null }) {
  return (
    <section className="section registration-page">
      <div className="container registration-container">
        <div className="card registration-section" role="status">
          <h1>{RETURNING_TEXT.usedTitle}</h1>
          <p>{RETURNING_TEXT.used}</p>
          {ask ? (
            <p>
              <a className="link-target" href={ask.from === "team" ? `/team-register/${ask.eventId}` : `/register/${ask.eventId}`}>Go to the form for {ask.eventTitle}</a>
            </p>
          ) : (
            <p><a className="link-target" href="/events">Choose your event</a>: its page and its forms have the box to ask again.</p>
          )}
        </div>
        {ask ? <ReturningBox eventId={ask.eventId} from={ask.from} /> : null}
      </div>
    </section>
  );
}
