import type { ToastMessage } from "../../views/components/Toast.tsx";
import type { SessionCart } from "../cart/rules.ts";

/** Everything the site keeps in a visitor's session. Features add their own keys here. */
declare module "express-session" {
  interface SessionData {
    /** One toast to show on the next page (set before a 303 redirect). */
    toast?: ToastMessage;
    /** The shop cart (src/cart/rules.ts): lines with product, variant, quantity and the price seen when added. */
    cart?: SessionCart;
    /** The cart checkout under way: its pending order and the cart it was made from. */
    checkout?: { orderReference: string; fingerprint: string };
  }
}

export {};
