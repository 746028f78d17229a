import type { OutgoingEmail } from "../../email/outbox.ts";
import type { Site } from "../../shared/site.ts";
import { deadlineText, momentText } from "../../shared/texts.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import { offerPriceText, type JoinRequest } from "../../shared/registrations/waitingList.ts";
import type { Entry } from "./tables/entries.ts";

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const placesText = (n: number) => `${n} ${n === 1 ? "place" : "places"}`;

/** Plain text and the same paragraphs as HTML, with one link as a button-like anchor. */
function message(site: Site, to: string, kind: string, reference: string, subject: string, paragraphs: string[], link: { label: string; url: string }): OutgoingEmail {
  const text = [...paragraphs.flatMap((p) => [p, ""]), `${link.label}: ${link.url}`, "", `Questions? Reply to this e-mail, write to ${site.email} or call ${site.phone}.`, "", site.displayName].join("\n");
  const html = `<!doctype html><html><body style="font-family:Arial,sans-serif;color:#111">
${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join("\n")}
<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>
<p>Questions? Write to ${escapeHtml(site.email)} or call ${escapeHtml(site.phone)}.</p></body></html>`;
  return { kind, reference, to, replyTo: site.email, subject, text, html };
}

/** Sent when a family or team asks to join: the link that confirms the address (and shows where they stand). */
export function confirmEmail(site: Site, event: EventDetail, join: JoinRequest, requestId: number, confirmUrl: string, confirmBy: Date): OutgoingEmail {
  return message(
    site,
    join.email,
    "waiting_list_confirm",
    `waiting-list-request:${requestId}`,
    `Confirm your place on the waiting list for ${event.title}`,
    [
      `Hi ${join.firstName},`,
      `You asked to join the waiting list for ${event.title} (${event.dateText}, ${event.location}) for ${placesText(join.places)}${join.kind === "team" ? " for your team" : ""}.`,
      `Open the link below and press "Confirm My Place in Line" ${deadlineText(confirmBy, event.timeZone)}: only then do you take your place in line. The same link then shows where you stand and lets you leave the list.`,
      "If you did not ask for this, ignore this e-mail: nothing happens.",
    ],
    { label: "Confirm my place in line", url: confirmUrl },
  );
}

/** Sent when a family or team is in line (its e-mail confirmed): their place in line and the link that leaves the list. */
export function joinedEmail(site: Site, event: EventDetail, entry: Entry, position: number, leaveUrl: string): OutgoingEmail {
  return message(
    site,
    entry.contact.email,
    "waiting_list_joined",
    `waiting-list:${entry.id}`,
    `You are on the waiting list for ${event.title}`,
    [
      `Hi ${entry.contact.firstName},`,
      `You are number ${position} on the waiting list for ${event.title} (${event.dateText}, ${event.location}), for ${placesText(entry.places)}${entry.kind === "team" ? " for your team" : ""}.`,
      "When places become free, we offer them in the order families and teams joined, to the first whose places fit. We then e-mail you a personal link; the places are held for you while you register and pay.",
      "Nothing is charged until you accept an offer and pay. If your plans change, leave the list with the link below.",
    ],
    { label: "Leave the waiting list", url: leaveUrl },
  );
}

/** The offer: the places held until when, and the personal link that registers them. */
export function offerEmail(site: Site, event: EventDetail, entry: Entry, offerUrl: string, until: Date): OutgoingEmail {
  const untilText = momentText(until, event.timeZone);
  const price = offerPriceText(event, entry);
  return message(
    site,
    entry.contact.email,
    "waiting_list_offer",
    `waiting-list:${entry.id}`,
    `Places are free for you at ${event.title}`,
    [
      `Hi ${entry.contact.firstName},`,
      `Good news: ${placesText(entry.places)} at ${event.title} (${event.dateText}, ${event.location}) ${entry.places === 1 ? "is" : "are"} now held for you${entry.kind === "team" ? " and your team" : ""}, until ${untilText}.`,
      ...(price ? [`The price: ${price}. Nothing is charged until you pay on the form.`] : []),
      `Open your personal link to register and pay before then. ${entry.kind === "team" ? "The team form opens with your places held." : entry.places > 1 ? `The registration form opens with your places held for ${entry.places} athletes: one form and one payment for all of them.` : "The registration form opens with your places held."} This link is only for you: please do not forward it.`,
      "If you no longer need the places, decline on the same page so the next family or team gets them sooner.",
    ],
    { label: "Register now", url: offerUrl },
  );
}
