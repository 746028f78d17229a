import type { ToastMessage } from "../../views/components/Toast.tsx";

/** Everything the site keeps in a visitor's session. Features add their own keys here. */
declare module "express-session" {
  interface SessionData {
    /** One toast to show on the next page (set before a 303 redirect). */
    toast?: ToastMessage;
    cart?: { items: { quantity: number }[] };
  }
}

export {};
