/**
 * The spec's shipping, returns, custom order and support constants, and the contact FAQ answered from them.
 * Browser-safe.
 */
import { FREE_SHIPPING_THRESHOLD_CENTS } from "../orders/rules.ts";
import { formatDollars } from "../money.ts";

export const SHIPPING = {
  freeOverCents: FREE_SHIPPING_THRESHOLD_CENTS,
  freeDeliveryBusinessDays: { min: 2, max: 3 },
  standardBusinessDays: { min: 3, max: 5 },
  standardRegion: "the continental US",
} as const;

export const RETURNS = {
  days: 30,
  condition: "unworn, unwashed items in their original packaging",
  customOrders: "custom team orders are final sale unless defective",
} as const;

export const CUSTOM_ORDERS = { productionDays: { min: 20, max: 60 }, shippingNote: "about a week" } as const;

export const SUPPORT_HOURS = { days: "Monday to Friday", open: "9am", close: "5pm", timeZone: "EST" } as const;

export function supportHoursText(): string {
  return `${SUPPORT_HOURS.days}, ${SUPPORT_HOURS.open} to ${SUPPORT_HOURS.close} ${SUPPORT_HOURS.timeZone}`;
}



export interface FaqEntry {
  question: string;
  answer: string;
  /** The policy page that says it in full. */
  more?: { href: string; label: string };
}

export function contactFaq(): FaqEntry[] {
  const s = SHIPPING;
  return [
    {
      question: "How long does shipping take?",
      answer:
        `Standard shipping takes ${s.standardBusinessDays.min}-${s.standardBusinessDays.max} business days in ${s.standardRegion}. ` +
        `Orders over ${formatDollars(s.freeOverCents)} ship free and arrive in ${s.freeDeliveryBusinessDays.min}-${s.freeDeliveryBusinessDays.max} business days.`,
      more: { href: "/shipping", label: "Our shipping policy" },
    },
    {
      question: "What is your return policy?",
      answer:
        `You have ${RETURNS.days} days to return ${RETURNS.condition}. ` +
        `Because they are made to order, ${RETURNS.customOrders}.`,
      more: { href: "/returns", label: "Our returns policy" },
    },
    {
      question: "How long do custom team orders take?",
      answer:
        `Custom team orders take ${CUSTOM_ORDERS.productionDays.min}-${CUSTOM_ORDERS.productionDays.max} days from approved design to finished gear, ` +
        `plus ${CUSTOM_ORDERS.shippingNote} to ship. Planning for a tournament? Reach out early and we will build the schedule backwards from your date.`,
    },
    {
      question: "When can I reach your team?",
      answer: `Our team answers e-mail and phone calls ${supportHoursText()}. Messages sent after hours are answered the next business day.`,
    },
    {
      question: "What do you do with my details?",
      answer: "We keep what you send us only to answer you, ship your order and send the e-mails you asked for; we never sell it.",
      more: { href: "/privacy", label: "Our privacy policy" },
    },
  ];
}

// ---------- what the site stores, and for how long (the privacy page; the README's clean-up SQL follows it) ----------

export interface StoredData {
  what: string;
  /** The tables (or store) it lives in. */
  where: string;
  why: string;
  kept: string;
}

export const SESSION_DAYS = 14;
export const ORDER_RECORD_YEARS = 7;
export const MESSAGE_YEARS = 2;
export const OUTBOX_DAYS = 90;
/** A team's invite link and the rows families filled in through it: kept this long after its last change. */
export const TEAM_INVITE_DAYS = 90;

export function storedData(): StoredData[] {
  return [
    {
      what: "Your cart, the checkout or registration in progress",
      where: "a session on our server, named by a cookie in your browser (a second random cookie only protects our forms against forgery)",
      why: "to remember your cart and your registration between pages; neither cookie is used for tracking",
      kept: `${SESSION_DAYS} days after your last visit, then deleted automatically`,
    },
    {
      what: "Orders: your name, e-mail address, phone number (optional), shipping address, the items, the amounts and the payment's status",
      where: "orders, order_items and payments",
      why: "to ship your order, answer your questions about it, handle returns and keep the records tax law asks for",
      kept: `${ORDER_RECORD_YEARS} years after the order, then deleted`,
    },
    {
      what: "Camp registrations: the athlete's name, grade or age, gender, school, club and shirt size, the contact's e-mail address and phone, the emergency contact, special requirements you tell us, the days, the package, any discount code and the payment's status; for a team, the coach and each athlete with a parent's name and phone",
      where: "registrations, registration_athletes, registration_days, registration_manage_links (only a hash of each private link), discount_redemptions and payments",
      why: "to run the camp safely, reach a parent or emergency contact, answer your questions and keep the records tax law asks for",
      kept: `${ORDER_RECORD_YEARS} years after the camp, then deleted`,
    },
    {
      what: "A team's invite link in progress: the coach's draft (contact, team name, the rows typed) and each row a family fills in through the link (the athlete, a parent's name and phone, the waiver's signature)",
      where: "team_invites (only a hash of the link) and team_invite_rows",
      why: "so the coach's team can be completed by its families before the coach pays; once paid, the team's registration keeps what it needs",
      kept: `${TEAM_INVITE_DAYS} days after its last change, then deleted`,
    },
    {
      what: "College coach requests: what the coach writes in the form and the school logo file, if one was sent",
      where: "coach_requests and coach_request_days; the logo in stored_files, in our database, where no page serves it",
      why: "to review the request and answer the coach",
      kept: `${MESSAGE_YEARS} years after the request, then deleted with its logo file`,
    },
    {
      what: "Messages and quote requests: what you write in the contact and custom apparel forms, with your name, e-mail address and phone",
      where: "contact_messages and quote_requests",
      why: "to answer you and prepare your quote",
      kept: `${MESSAGE_YEARS} years after you wrote, then deleted`,
    },
    {
      what: "Newsletter sign-ups: your e-mail address and the page you signed up on",
      where: "newsletter_subscribers",
      why: "to send you the newsletter",
      kept: "until you ask us to remove it",
    },
    {
      what: "The e-mails we send: the address, subject and text of each e-mail and whether it was delivered",
      where: "email_outbox",
      why: "to deliver each e-mail once, retry when the mail server is down, and check what was sent when you ask",
      kept: `${OUTBOX_DAYS} days after it was sent, then deleted`,
    },
    {
      what: "Server logs: the pages asked for, the time, the answer's status, a one-way hash of the session id and at most a shortened e-mail address; never what you typed in a form, a card number or a password",
      where: "our server's logs",
      why: "to keep the site running and find faults",
      kept: "30 days",
    },
  ];
}
