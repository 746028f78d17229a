import type { Db } from "../../db/knex.ts";
import type { Logger } from "../../logger.ts";
import type { Site } from "../../shared/site.ts";
import type { Outbox } from "../../email/outbox.ts";
import type { PaymentCore } from "../../payments/core.ts";
import type { Registration } from "./registration.ts";

/** The payment core's name for registration payments (individuals and teams alike): booking/paymentHandler.ts. */
export const REGISTRATION_KIND = "registration";
/** A paid registration's change that costs money (changes/paidChanges.ts). */
export const CHANGE_KIND = "registration_change";
/** A deposit registration's balance (balances/paymentHandler.ts). */
export const BALANCE_KIND = "registration_balance";
/** A pending registration holds its places this long while the visitor pays. */
export const HOLD_MINUTES = 30;

/** Limits on what one visitor may hold (README: Registrations, limits). */
export interface RegistrationLimits {
  /** Places one visitor (by session key, and by address) may hold unpaid at once, over every event. */
  maxHeldPlacesPerVisitor: number;
  /** Athletes of one team registration. */
  maxTeamAthletes: number;
}

export const DEFAULT_REGISTRATION_LIMITS: RegistrationLimits = { maxHeldPlacesPerVisitor: 60, maxTeamAthletes: 60 };

/** What every registration use case is given. */
export interface RegistrationDeps {
  db: Db;
  paymentCore: PaymentCore;
  outbox: Outbox;
  logger: Logger;
  site: Site;
  limits: RegistrationLimits;
  clock: () => Date;
  /** The site's public origin, for the manage links in e-mails (written without a request at hand). */
  publicUrl: string;
}

/** A pending registration whose hold has not lapsed: it keeps its places and may still change. */
export function holdIsLive(r: Pick<Registration, "status" | "reservedUntil">, now: Date): boolean {
  return r.status === "pending_payment" && (r.reservedUntil?.getTime() ?? 0) > now.getTime();
}
