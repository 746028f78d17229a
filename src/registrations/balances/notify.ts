import type { Knex } from "knex";
import { enqueueEmail, type OutgoingEmail } from "../../email/outbox.ts";
import { findEvent } from "../../events/repository.ts";
import type { EventDetail } from "../../shared/events/types.ts";
import type { Registration } from "../core/registration.ts";
import { findByReference } from "../core/tables/registrations.ts";
import type { RegistrationDeps } from "../core/deps.ts";
import { issueManageLink, manageUrl } from "../changes/links.ts";
import type { Balance } from "./repository.ts";

/** Queues one of the balance's e-mails with a fresh manage link, in the caller's transaction (it exists when the fact does). */
export async function queueBalanceEmail(
  deps: RegistrationDeps,
  trx: Knex.Transaction,
  b: Pick<Balance, "eventId" | "reference">,
  make: (event: EventDetail, r: Registration, manageUrl: string) => OutgoingEmail,
): Promise<void> {
  const event = await findEvent(trx, b.eventId);
  const r = await findByReference(trx, b.reference);
  if (!event || !r) return;
  const token = await issueManageLink(trx, r.id, "balance", deps.clock());
  await enqueueEmail(trx, make(event, r, manageUrl(deps.publicUrl, token)));
}
