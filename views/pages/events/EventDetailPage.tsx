import type { EventDetail } from "../../../src/shared/events/types.ts";
import { REGISTRATION_STATUS_LABEL, eventHoursText, teamSavingsCents, type RegistrationStatus } from "../../../src/shared/events/rules.ts";
import { deadlineText } from "../../../src/shared/texts.ts";
import { EventPrice } from "../../components/events/EventPrice.tsx";
import { CalendarIcon, CheckIcon, ClockIcon, MapPinIcon, ShieldIcon, TagIcon, UsersIcon } from "../../components/events/EventIcons.tsx";
import { formatPrice } from "../../../src/shared/money.ts";
import { coachEvent, type CoachRegistrationState } from "../../../src/shared/collegeCoachRequests/rules.ts";
import { COACH_MESSAGES } from "../../../src/shared/collegeCoachRequests/schemas.ts";
import { Widget } from "../../components/Widget.tsx";
import { WaitingListBlock } from "../../components/events/WaitingListBlock.tsx";
import { LostConfirmation } from "../../components/LostConfirmation.tsx";
import { ReturningBox } from "../../../components/ReturningFamily.tsx";
import { useImageUrl } from "../../layout/imageUrl.ts";
import { PaymentPlansLine, type DepositOffer } from "../../../components/PaymentPlanChoice.tsx";

export interface EventDetailPageProps {
  event: EventDetail;
  placesLeft: number;
  status: RegistrationStatus;
  /** Whether college coaches can send a request for this event (the recruiting clinic) now; absent means not offered. */
  coachRegistration?: CoachRegistrationState;
  /** Families and teams on the waiting list, and the places they need. */
  waiting?: { entries: number; places: number };
  /** The event's deposit policy as of the server's clock: "Pay in full" beside "Pay today, then the balance". */
  depositOffer?: DepositOffer;
}

const MIN_TEAM_SIZE = 5;

function RegisterAction({ event, status }: { event: EventDetail; status: RegistrationStatus }) {
  if (status === "open") {
    return <a className="btn btn-primary btn-block btn-lg" href={`/register/${event.id}`}>Secure Registration</a>;
  }
  return (
    <button type="button" className="btn btn-primary btn-block btn-lg" disabled>
      {REGISTRATION_STATUS_LABEL[status]}
    </button>
  );
}

/** Both ways to register, side by side at the top of the page (on a phone, before the long content). */
function RegistrationChoices({ event, status }: { event: EventDetail; status: RegistrationStatus }) {
  if (status !== "open") return null;
  return (
    <nav className="event-hero-actions" aria-label="Register">
      <a className="btn btn-primary" href={`/register/${event.id}`}>
        Register as Individual <span className="btn-note">{formatPrice(event.fullPriceCents)}</span>
      </a>
      <a className="btn btn-secondary" href={`/team-register/${event.id}`}>
        Register as Team <span className="btn-note">{formatPrice(event.teamPriceCents)}/athlete</span>
      </a>
    </nav>
  );
}

function PlacesLine({ event, placesLeft, status }: EventDetailPageProps) {
  if (status === "soldOut") return <p className="event-places event-places-out" role="status">Sold out: all {event.capacity} places are taken.</p>;
  if (status === "closed") return <p className="event-places event-places-out" role="status">Registration for this event is closed.</p>;
  return (
    <p className="event-places">
      <strong>{placesLeft}</strong> of {event.capacity} places left
    </p>
  );
}

/** The recruiting clinic's box for college coaches: the button opens the coach dialog, or the page without JavaScript. */
function CoachBox({ event, state }: { event: EventDetail; state: CoachRegistrationState }) {
  if (state === "notOffered") return null;
  return (
    <section className="card event-box coach-box" aria-labelledby="coach-heading">
      <h2 id="coach-heading" className="event-box-title">College Coaches</h2>
      <p>Recruiting for your program? Tell us which days you will attend and we will save you a seat by the mats.</p>
      {state === "open" ? (
        <Widget name="CoachRequestDialog" load="interaction" trigger="[data-coach-dialog-open]" props={{ event: coachEvent(event) }} />
      ) : (
        <p className="muted" role="status">{COACH_MESSAGES.closed}</p>
      )}
    </section>
  );
}

export function EventDetailPage({ event, placesLeft, status, coachRegistration = "notOffered", waiting = { entries: 0, places: 0 }, depositOffer }: EventDetailPageProps) {
  const paragraphs = event.description.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);
  const teamSaving = teamSavingsCents(event);
  const image = useImageUrl();
  return (
    <article className="event-detail">
      <header className="event-hero">
        <div className="container event-hero-grid">
        <div className="event-hero-content">
          <nav className="breadcrumb" aria-label="Breadcrumb">
            <ol>
              <li><a href="/events">Events</a></li>
              <li><span aria-current="page">{event.title}</span></li>
            </ol>
          </nav>
          <p className="event-hero-tags">
            <span className="badge">{event.category}</span>
            <span className="event-limit">Limited to {event.capacity} participants - Register early to secure your spot</span>
          </p>
          <h1 className="display">{event.title}</h1>
          <p className="event-hero-meta">{event.dateText} &middot; {event.location}</p>
          <RegistrationChoices event={event} status={status} />
        </div>
        <img className="event-hero-picture" src={image(event.image)} alt={`${event.title} poster`} width="1200" height="800" fetchPriority="high" />
        </div>
      </header>

      <div className="container event-layout">
        <ul className="event-facts" aria-label="Event essentials">
          <li><CalendarIcon /><span><strong>Date</strong>{event.dateText}</span></li>
          <li><ClockIcon /><span><strong>Time</strong>{eventHoursText(event)}</span></li>
          <li><MapPinIcon /><span><strong>Location</strong>{event.location}</span></li>
          <li><TagIcon /><span><strong>Price</strong>{formatPrice(event.fullPriceCents)}</span></li>
        </ul>

        <section className="card event-box register-box" aria-labelledby="register-heading">
          <h2 id="register-heading" className="event-box-title">Individual Registration</h2>
          <EventPrice event={event} size="lg" />
          <ul className="package-list" aria-label="Registration options">
            {event.packages.map((p) => (
              <li key={p.code}><span>{p.label}</span><strong>{formatPrice(p.priceCents)}</strong></li>
            ))}
          </ul>
          <PaymentPlansLine offer={depositOffer} priceCents={event.fullPriceCents} />
          <PlacesLine event={event} placesLeft={placesLeft} status={status} />
          <RegisterAction event={event} status={status} />
          <WaitingListBlock eventId={event.id} status={status} waiting={waiting} />
          <ul className="event-assurances">
            <li><UsersIcon /><span>{event.ageGroup}</span></li>
            <li><ShieldIcon /><span>Limited to {event.capacity} wrestlers</span></li>
          </ul>
        </section>

        <div className="event-content">
          {event.coaches.length > 0 ? (
            <section className="event-section" aria-labelledby="coaches-heading">
              <h2 id="coaches-heading">Elite Coaching Staff</h2>
              <ul className="coach-grid">
                {event.coaches.map((c) => (
                  <li key={c.id} className="card coach-card">
                    <img src={image(c.image)} alt={`Portrait of ${c.name}`} width="400" height="400" loading="lazy" />
                    <div className="card-body">
                      <h3>{c.name}</h3>
                      <p className="coach-title">{c.title}</p>
                      <p className="coach-bio">{c.bio}</p>
                    </div>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}

          <section className="event-section" aria-labelledby="about-heading">
            <h2 id="about-heading">About This Event</h2>
            <div className="prose">
              {paragraphs.map((p, i) => <p key={i}>{p}</p>)}
            </div>
          </section>

          {event.features.length > 0 ? (
            <section className="event-section" aria-labelledby="included-heading">
              <h2 id="included-heading">What's Included</h2>
              <ul className="feature-list">
                {event.features.map((f) => <li key={f}><CheckIcon /><span>{f}</span></li>)}
              </ul>
            </section>
          ) : null}

          {event.collegeLogos.length > 0 ? (
            <section className="event-section" aria-labelledby="colleges-heading">
              <h2 id="colleges-heading">Colleges Attending</h2>
              {event.cardOverlay ? <p className="event-overlay-note">{event.cardOverlay}</p> : null}
              <ul className="college-logos">
                {event.collegeLogos.map((l) => (
                  <li key={l.id}>
                    <img src={image(l.image)} alt="" width="120" height="140" loading="lazy" />
                    <span>{l.name}</span>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
        </div>

        <div className="event-side">
          <CoachBox event={event} state={coachRegistration} />
          <section className="card event-box team-box" aria-labelledby="team-heading">
            <h2 id="team-heading" className="event-box-title">Team Registration</h2>
            <p className="team-price">
              <span className="price">{formatPrice(event.teamPriceCents)}</span> <span className="muted">per athlete</span>
            </p>
            {teamSaving > 0 ? (
              <p>Save {formatPrice(teamSaving)} per athlete against the regular {formatPrice(event.regularPriceCents)} when a coach registers the team.</p>
            ) : null}
            <p className="muted">Minimum {MIN_TEAM_SIZE} athletes. One payment; the coach is the primary contact.</p>
            {status === "open" ? (
              <a className="btn btn-secondary btn-block" href={`/team-register/${event.id}`}>Register a Team</a>
            ) : (
              <button type="button" className="btn btn-secondary btn-block" disabled>Team Registration Unavailable</button>
            )}
          </section>

          <section className="card event-box info-box" aria-labelledby="info-heading">
            <h2 id="info-heading" className="event-box-title">Event Information</h2>
            <dl className="info-list">
              <div><dt>Age Group</dt><dd>{event.ageGroup}</dd></div>
              <div><dt>Capacity</dt><dd>{event.capacity} wrestlers</dd></div>
              <div><dt>Places Left</dt><dd>{status === "soldOut" ? "Sold out" : placesLeft}</dd></div>
              <div><dt>Dates</dt><dd>{event.dateText}</dd></div>
              <div><dt>Time</dt><dd>{eventHoursText(event)}</dd></div>
              <div><dt>Location</dt><dd>{event.location}</dd></div>
              {event.features.length > 0 ? (
                <div><dt>Special Features</dt><dd>{event.features.slice(0, 3).join("; ")}</dd></div>
              ) : null}
              <div>
                <dt>Registration Closes</dt>
                <dd>{deadlineText(event.registrationClosesAt, event.timeZone, { year: true })}</dd>
              </div>
            </dl>
          </section>
          {status === "open" ? <ReturningBox eventId={event.id} from="event" /> : null}
          <LostConfirmation eventId={event.id} />
        </div>
      </div>
    </article>
  );
}
