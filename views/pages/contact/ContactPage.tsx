import { useContext } from "react";
import type { Site } from "../../../src/shared/site.ts";
import { formWidgetProps, type FormState } from "../../../src/shared/forms.ts";
import { contactFaq, supportHoursText } from "../../../src/shared/inbox/policies.ts";
import { CsrfContext } from "../../../components/Form.tsx";
import { Widget } from "../../components/Widget.tsx";
import { MailIcon, PhoneIcon, PinIcon } from "../../layout/Icons.tsx";
import { useImageUrl } from "../../layout/imageUrl.ts";

export interface ContactPageProps {
  site: Site;
  contact: { form: FormState; sent: boolean };
}

export function ContactPage({ site, contact }: ContactPageProps) {
  const csrfToken = useContext(CsrfContext);
  const hours = supportHoursText();
  const image = useImageUrl();
  return (
    <>
      <section className="page-hero" aria-labelledby="contact-title">
        <div className="container">
          <p className="eyebrow">Contact</p>
          <h1 id="contact-title" className="display">Get in Touch</h1>
          <p className="lead">Questions about camps, orders or custom team gear? Send us a message and a real person on our team will get back to you.</p>
        </div>
      </section>

      <section className="section contact-info" aria-label="Contact details">
        <div className="container grid grid-3">
          <div className="card info-card">
            <MailIcon className="info-icon" />
            <h2>Email</h2>
            <p><a href={`mailto:${site.email}`}>{site.email}</a></p>
            <p className="muted">We reply within one business day.</p>
          </div>
          <div className="card info-card">
            <PhoneIcon className="info-icon" />
            <h2>Phone</h2>
            <p><a href={site.phoneHref}>{site.phone}</a></p>
            <p className="muted">{hours}</p>
          </div>
          <div className="card info-card">
            <PinIcon className="info-icon" />
            <h2>Mailing Address</h2>
            <address>{site.mailingAddress.map((l) => <span key={l}>{l}<br /></span>)}</address>
          </div>
        </div>
      </section>

      <section className="section section-alt" aria-labelledby="message-title">
        <div className="container contact-grid">
          <div>
            <h2 id="message-title">Send Us a Message</h2>
            {/* The form works as a plain post; its instant checks load at the first hover, focus or touch (JavaScript budget). */}
            <Widget name="ContactForm" load="interaction" props={{ ...formWidgetProps(csrfToken, contact.form, contact.sent), supportHours: hours }} />
          </div>
          <div>
            <h2>Find Us</h2>
            <figure className="map">
              <img src={image("/images/contact/birmingham-map.svg")} width={1000} height={600} loading="lazy"
                alt={`Map of downtown Birmingham with a pin at ${site.mailingAddress.slice(1).join(", ")}, at 1st Avenue North and 21st Street North`} />
              <figcaption>{site.mailingAddress.slice(1).join(", ")}</figcaption>
            </figure>
          </div>
        </div>
      </section>

      <section className="section" aria-labelledby="faq-title">
        <div className="container faq">
          <h2 id="faq-title">Frequently Asked Questions</h2>
          {contactFaq().map((f) => (
            <details key={f.question}>
              <summary>{f.question}</summary>
              <p>
                {f.answer}
                {f.more ? <> <a href={f.more.href}>{f.more.label}</a>.</> : null}
              </p>
            </details>
          ))}
        </div>
      </section>
    </>
  );
}
