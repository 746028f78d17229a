import type { EventSummary } from "../../../src/shared/events/types.ts";
import { REGISTRATION_STATUS_LABEL, type RegistrationStatus } from "../../../src/shared/events/rules.ts";
import { EventPrice } from "../../components/events/EventPrice.tsx";
import { CalendarIcon, MapPinIcon } from "../../components/events/EventIcons.tsx";
import { useImageUrl } from "../../layout/imageUrl.ts";

export const EVENTS_HERO_POSTER = "/images/events/events-hero.svg";

export interface EventsPageProps {
  events: EventSummary[];
  /** Whether each event (by id) is open, sold out or closed. */
  statuses: Record<number, RegistrationStatus>;
  /** The coming season's year, from the event dates; null when no event is listed. */
  seasonYear: number | null;
  /** Set when the hero has a configured video; otherwise the poster picture stands alone. */
  heroVideoUrl?: string | undefined;
  /** The spec's fetch-failure text, when the events could not be read. */
  loadError?: string | undefined;
}

function EventCard({ event, status }: { event: EventSummary; status: RegistrationStatus }) {
  const titleId = `event-${event.id}-title`;
  const image = useImageUrl();
  return (
    <article className="card event-card" aria-labelledby={titleId}>
      {/* The artwork carries its own words: the badges and the overlay line sit under it, never over it. */}
      <div className="event-card-media">
        <img src={image(event.image)} alt={`${event.title} poster`} width="1200" height="800" loading="lazy" decoding="async" />
      </div>
      <div className="event-card-strip">
        <p className="event-card-tags">
          <span className="badge event-card-badge">{event.category}</span>
          {status !== "open" ? <span className="badge event-card-status">{REGISTRATION_STATUS_LABEL[status]}</span> : null}
        </p>
        {event.cardOverlay ? <p className="event-card-overlay-text">{event.cardOverlay}</p> : null}
        {event.collegeLogos.length > 0 ? (
          <ul className="college-logos college-logos-small" aria-label="Colleges attending">
            {event.collegeLogos.map((logo) => (
              <li key={logo.id}><img src={image(logo.image)} alt={logo.name} width="56" height="64" loading="lazy" /></li>
            ))}
          </ul>
        ) : null}
      </div>
      <div className="card-body event-card-body">
        <h3 id={titleId} className="event-card-title">{event.title}</h3>
        <ul className="event-meta">
          <li><CalendarIcon /><span>{event.dateText}</span></li>
          <li><MapPinIcon /><span>{event.location}</span></li>
        </ul>
        <p className="event-card-summary">{event.shortDescription}</p>
        <div className="event-card-foot">
          <EventPrice event={event} />
          <a className="btn btn-primary" href={`/events/${event.id}`} aria-describedby={titleId}>View Details</a>
        </div>
      </div>
    </article>
  );
}

export function EventsPage({ events, statuses, seasonYear, heroVideoUrl, loadError }: EventsPageProps) {
  const poster = useImageUrl()(EVENTS_HERO_POSTER);
  return (
    <>
      <section className="events-hero">
        <div className="events-hero-media">
          <img src={poster} alt="" width="1600" height="900" fetchPriority="high" />
          {heroVideoUrl ? (
            <video className="events-hero-video" autoPlay muted loop playsInline preload="metadata" poster={poster} aria-hidden="true" tabIndex={-1}>
              <source src={heroVideoUrl} />
            </video>
          ) : null}
        </div>
        <div className="container events-hero-content">
          <p className="eyebrow">{seasonYear ? `Summer ${seasonYear} camps, clinics & tours` : "Summer camps, clinics & tours"}</p>
          <h1 className="display">Events</h1>
          <p className="lead">
            Train with champions. Three days of hard, technical wrestling, recruiting exposure in front of college
            coaches, and a training tour on the road. Ages 10+ through high school.
          </p>
        </div>
      </section>

      <section className="section" aria-labelledby="events-list-heading">
        <div className="container">
          <h2 id="events-list-heading" className="section-title">Upcoming Events</h2>
          {loadError ? (
            <p className="event-alert" role="alert">{loadError}</p>
          ) : events.length === 0 ? (
            <p className="lead">No events are open right now. New camps are announced here first: check back soon.</p>
          ) : (
            <div className="events-grid">
              {events.map((e) => <EventCard key={e.id} event={e} status={statuses[e.id] ?? "open"} />)}
            </div>
          )}
        </div>
      </section>
    </>
  );
}
