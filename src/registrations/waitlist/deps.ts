import type { RegistrationDeps } from "../core/deps.ts";

/** What the waiting list's use cases are given: the registrations' deps, the offer time and the site's address for links. */
export interface WaitingListDeps extends RegistrationDeps {
  offerHours: number;
  publicUrl: string;
}
