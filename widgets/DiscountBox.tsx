/**
 * 'Have a discount code?' on the payment step and /stripe-checkout: a real form (it works without JavaScript,
 * the server redirects back with a toast), taken over to apply the code in place. Once applied the input and
 * the button lock ('Applied'); Remove takes the code off again, so another one can replace it.
 */
import { useId, useState, type FormEvent } from "react";
import { apiFetch, ApiError } from "./api.ts";
import { showToast } from "./toast.ts";
import { DISCOUNT_TEXT, MAX_CODE_LENGTH } from "../src/shared/discounts/rules.ts";
import { formatPrice } from "../src/shared/money.ts";
import { CsrfContext, Form } from "../components/Form.tsx";

/** The code a registration holds, as the payment step shows it. */
export interface DiscountView {
  code: string;
  offCents: number;
  listCents: number;
}

/** What the server answered: the new amount, and the card form's client secret when there is one. */
export interface DiscountChange {
  discount: DiscountView | null;
  amountCents: number;
  clientSecret: string | null;
  /** The code is held but the payment could not follow: the page must be refreshed before paying. */
  refreshRequired: boolean;
}

export interface DiscountBoxProps {
  eventId: number;
  csrfToken: string;
  /** Where the no-JavaScript form comes back to. */
  from: "register" | "checkout";
  /** 'team' on the team checkout: the coach's team registration. */
  option?: "team";
  discount: DiscountView | null;
  listCents: number;
  disabled?: boolean;
  onChange?: (change: DiscountChange) => void;
}

interface ValidateAnswer {
  title?: string;
  message?: string;
  clientSecret?: string | null;
  refreshRequired?: boolean;
  discount?: { code: string; discountAmountCents: number; finalPriceCents: number };
  finalPriceCents?: number;
}

export function DiscountBox({ eventId, csrfToken, from, option, discount, listCents, disabled, onChange }: DiscountBoxProps) {
  const [code, setCode] = useState(discount?.code ?? "");
  const [busy, setBusy] = useState(false);
  const uid = useId();
  const applied = discount !== null;

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy) return;
    const remove = applied;
    if (!remove && !code.trim()) {
      showToast({ title: DISCOUNT_TEXT.missingTitle, description: DISCOUNT_TEXT.missing, variant: "destructive" });
      return;
    }
    setBusy(true);
    try {
      const res = await apiFetch<ValidateAnswer>("/api/validate-discount", {
        method: "POST",
        json: remove ? { eventId, option, remove: true } : { discountCode: code.trim(), originalPrice: listCents / 100, eventId, option },
      });
      if (remove) {
        setCode("");
        onChange?.({ discount: null, amountCents: res.finalPriceCents ?? listCents, clientSecret: res.clientSecret ?? null, refreshRequired: false });
        showToast({ title: "Discount Removed", description: "The discount code was removed." });
        return;
      }
      const d = res.discount!;
      onChange?.({
        discount: { code: d.code, offCents: d.discountAmountCents, listCents },
        amountCents: d.finalPriceCents,
        clientSecret: res.clientSecret ?? null,
        refreshRequired: res.refreshRequired === true,
      });
      setCode(d.code);
      showToast({ title: res.title ?? DISCOUNT_TEXT.appliedTitle, description: res.message, variant: "success" });
    } catch (err) {
      if (err instanceof ApiError && err.body && err.status !== 503 && err.status < 500) {
        const title = typeof err.body.title === "string" ? err.body.title : DISCOUNT_TEXT.invalidTitle;
        showToast({ title, description: err.serverMessage ?? DISCOUNT_TEXT.invalidDefault, variant: "destructive" });
      } else {
        showToast({ title: DISCOUNT_TEXT.errorTitle, description: DISCOUNT_TEXT.error, variant: "destructive" });
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <CsrfContext value={csrfToken}>
    <Form action={`/register/${eventId}/discount`} className="card registration-section discount-box" label="Discount code" onSubmit={(e) => void submit(e)}>
      <input type="hidden" name="from" value={from} />
      {option ? <input type="hidden" name="option" value={option} /> : null}
      <label htmlFor={`${uid}-code`} className="discount-box-title">{DISCOUNT_TEXT.boxTitle}</label>
      <div className="discount-box-row">
        <input id={`${uid}-code`} name="discountCode" type="text" autoComplete="off" autoCapitalize="characters" maxLength={MAX_CODE_LENGTH}
          value={code} onChange={(e) => setCode(e.target.value)} readOnly={applied} aria-readonly={applied || undefined} placeholder="Enter code" />
        {applied ? (
          <>
            <button type="button" className="btn btn-secondary" disabled aria-disabled="true">Applied</button>
            <button type="submit" name="remove" value="1" className="btn btn-link" disabled={busy || disabled}>Remove</button>
          </>
        ) : (
          <button type="submit" className="btn btn-secondary" disabled={busy || disabled}>{busy ? "Applying..." : "Apply"}</button>
        )}
      </div>
      {applied ? (
        <p className="discount-box-applied" role="status">
          {`${discount.code}: ${formatPrice(discount.offCents)} off`}
        </p>
      ) : null}
    </Form>
    </CsrfContext>
  );
}
