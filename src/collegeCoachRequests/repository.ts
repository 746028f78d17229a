/** The coach requests' queries: the request, its logo, its days and both e-mails are written in one transaction. */
import type { Db } from "../db/knex.ts";
import { enqueueEmail } from "../email/outbox.ts";
import { coachRequestAcknowledgement, coachRequestBrandEmail } from "./emails.ts";
import type { CoachEvent } from "../shared/collegeCoachRequests/rules.ts";
import type { CoachRequest } from "../shared/collegeCoachRequests/schemas.ts";
import type { LogoType } from "../shared/collegeCoachRequests/rules.ts";
import { storeLogo } from "./logoStore.ts";

export interface SaveCoachRequest {
  event: CoachEvent;
  request: CoachRequest;
  /** The accepted logo, checked by its content. */
  logo: { type: LogoType; content: Buffer } | undefined;
  brand: string;
  brandInbox: string;
}

export async function saveCoachRequest(db: Db, { event, request, logo: upload, brand, brandInbox }: SaveCoachRequest): Promise<number> {
  const dayIds = event.days.filter((d) => request.daysAttending.includes(d.date)).map((d) => d.id);
  return db.transaction(async (trx) => {
    const logo = upload ? await storeLogo(trx, upload.content, upload.type) : undefined;
    const [id] = await trx("coach_requests").insert({
      event_id: event.id,
      full_name: request.fullName,
      title: request.title,
      college_name: request.collegeName,
      email: request.email,
      cell_phone: request.cellPhone,
      school_phone: request.schoolPhone ?? null,
      school_website: request.schoolWebsite ?? null,
      division_level: request.divisionLevel,
      conference: request.conference,
      number_of_athletes: request.numberOfAthletes,
      areas_of_interest: request.areasOfInterest.join(", "),
      notes: request.notes ?? null,
      logo_file: logo?.file ?? null,
      logo_content_type: logo?.contentType ?? null,
      logo_bytes: logo?.bytes ?? null,
      created_at: new Date(),
    });
    const requestId = Number(id);
    await trx("coach_request_days").insert(dayIds.map((dayId) => ({ coach_request_id: requestId, event_day_id: dayId })));
    await enqueueEmail(trx, coachRequestBrandEmail(requestId, event, request, logo, brandInbox));
    await enqueueEmail(trx, coachRequestAcknowledgement(requestId, event, request, brand, brandInbox));
    return requestId;
  });
}
