import { savingsCents } from "../../../src/shared/events/rules.ts";
import type { EventSummary } from "../../../src/shared/events/types.ts";
import { formatDollars, formatPrice } from "../../../src/shared/money.ts";

/** The headline price, with the struck-through original and 'SAVE $50' where the event has a promotion. */
export function EventPrice({ event, size = "md" }: { event: EventSummary; size?: "md" | "lg" }) {
  const saving = savingsCents(event);
  return (
    <p className={`event-price event-price-${size}`}>
      {saving !== null && event.originalPriceCents !== null ? (
        <>
          <del className="price-old">
            <span className="visually-hidden">Was </span>
            {formatPrice(event.originalPriceCents)}
          </del>{" "}
        </>
      ) : null}
      <span className="price">
        {saving !== null ? <span className="visually-hidden">Now </span> : null}
        {formatPrice(event.fullPriceCents)}
      </span>
      {saving !== null ? <> <span className="badge save-badge">SAVE {formatDollars(saving)}</span></> : null}
    </p>
  );
}
