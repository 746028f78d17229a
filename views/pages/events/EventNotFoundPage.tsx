import { EVENT_NOT_FOUND_TEXT, EVENT_NOT_FOUND_TITLE } from "../../../src/shared/events/rules.ts";

/** The not-found screen, also shown (with the load-failure text and its own heading) when the event could not be read. */
export function EventNotFoundPage({ message = EVENT_NOT_FOUND_TEXT, title = EVENT_NOT_FOUND_TITLE }: { message?: string; title?: string }) {
  return (
    <section className="page-center">
      <p className="eyebrow">Events</p>
      <h1 className="display">{title}</h1>
      <p className="lead">{message}</p>
      <a className="btn btn-primary" href="/events">Return to Events</a>
    </section>
  );
}
