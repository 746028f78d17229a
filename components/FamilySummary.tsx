import { formatPrice } from "../src/shared/money.ts";
import { familyDiscountCents, SIBLING_TEXT, type FamilyLineView } from "../src/shared/registrations/siblings.ts";

/**
 * A family's athletes as summary rows (inside a <dl className="summary-rows">): each athlete's package, days and price,
 * then the sibling discount. The payment step, the manage page and step 1 show the same rows.
 */
export function FamilyRows({ lines }: { lines: readonly FamilyLineView[] }) {
  const discount = familyDiscountCents(lines);
  return (
    <>
      {lines.map((l, i) => (
        <div key={i} data-testid="family-athlete">
          <dt>{`${SIBLING_TEXT.heading(i + 1)}: ${l.name}`}</dt>
          <dd>{`${l.packageLabel}${l.days.length > 0 ? ` (${l.days.join(", ")})` : ""}, ${formatPrice(l.listCents)}`}</dd>
        </div>
      ))}
      {discount > 0 ? (
        <div>
          <dt>{SIBLING_TEXT.discountLine}</dt>
          <dd data-testid="sibling-discount">{`-${formatPrice(discount)}`}</dd>
        </div>
      ) : null}
    </>
  );
}
