import type { ToastMessage } from "../../views/components/Toast.tsx";
import type { SessionCart } from "../shared/cart/rules.ts";
import type { ReturningPrefill } from "../shared/registrations/returning.ts";

/** Everything the site keeps in a visitor's session, declared here and nowhere else (a lint rule checks). */
declare module "express-session" {
  interface SessionData {
    /** One toast to show on the next page (set before a 303 redirect). */
    toast?: ToastMessage;
    /** The shop cart (src/shared/cart/rules.ts): lines with product, variant, quantity and the price seen when added. */
    cart?: SessionCart;
    /** The cart checkout under way: its pending order and the cart it was made from. */
    checkout?: { orderReference: string; fingerprint: string };
    /** The order this session paid last: the confirmation panel on /shop?success=true shows it. */
    lastPaidOrder?: string;
    /** Names this visitor's checkouts in the database (orders.checkout_key, checkout_locks); kept when the session id is renewed. */
    checkoutKey?: string;
    /** Forms sent without JavaScript, by form id: the next page shows the form's confirmation once. */
    sentForms?: Partial<Record<string, true>>;
    /** The per-session rate limits' key (src/http/rateLimit.ts); it stays when the session id is renewed. */
    rateKey?: string;
    /** Individual registrations this visitor started: event id -> the latest registration's reference. */
    registrations?: Record<string, string>;
    /** Every registration reference this visitor made (newest last, at most 20): a form id is only reused by its maker. */
    registrationRefs?: string[];
    /** Team registrations this coach started: event id -> the latest team registration's reference. */
    teamRegistrations?: Record<string, string>;
    /** The manage link this visitor's confirmation page shows, per paid registration reference (at most 10): one link, however often it is reloaded. */
    manageLinks?: Record<string, string>;
    /** What a "Registered before?" link opened in this browser fills in (one event's form; the latest link replaces it). */
    returningPrefill?: ReturningPrefill;
    /** A coach's team invite link per event (event id -> the link's token; the table keeps only its hash): the coach's browser reaches its draft and the link again. */
    teamInvites?: Record<string, string>;
    /** The rows this browser filled in through team invite links (invite id -> row id, at most 10): a family corrects its own row until the coach pays. */
    inviteRows?: Record<string, number>;
  }
}

export {};
