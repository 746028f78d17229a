import { formatPrice } from "../../../src/shared/money.ts";
import type { BalanceView } from "../../../src/shared/registrations/deposits.ts";
import type { IslandProps } from "../../../components/islands.ts";
import { SummaryRows } from "../../components/SummaryRows.tsx";
import { Widget } from "../../components/Widget.tsx";

export const BALANCE_TEXT = {
  heading: "Your balance",
  owed: (b: BalanceView) => `${formatPrice(b.owedCents)} is due on ${b.dueText}.`,
  charged: (b: BalanceView) => (b.cardText ? `We charge it to ${b.cardText} on that day.` : "We charge it to the card you paid the deposit with on that day."),
  overdue: "Your balance is overdue: your places are kept for a few days. Pay it now to keep them.",
  /** Past the due date, not yet overdue: never "We charge it on that day" once that day has gone. */
  notYetPaid: (b: BalanceView) => `${formatPrice(b.owedCents)} was due on ${b.dueText} and is not paid yet. Pay it now, or we try the card again and e-mail you.`,
  payNow: "Pay the balance now",
  anotherCard: "Use another card",
  payTitle: "Pay Your Balance",
  /** Said on the registration's page the payment or the card form goes back to. */
  paidToast: (reference: string) => `Balance paid: registration ${reference} is paid in full. A receipt is on its way by e-mail.`,
  cardSavedToast: "New card saved: the balance will be charged to it on its due date.",
} as const;

/** The manage page's deposit plan: paid, owed and when, and the two ways to act on it. */
export function BalanceSection({ balance }: { balance: BalanceView }) {
  return (
    <section className="card registration-section" aria-labelledby="manage-balance" data-testid="manage-balance">
      <h2 id="manage-balance">{BALANCE_TEXT.heading}</h2>
      {balance.overdue ? <p className="notice-inline" role="alert">{BALANCE_TEXT.overdue}</p> : null}
      <SummaryRows rows={[["Deposit paid", formatPrice(balance.paidCents)], ["Balance", formatPrice(balance.owedCents)], ["Due", balance.dueText]]} />
      {balance.overdue ? null : <p>{balance.pastDue ? BALANCE_TEXT.notYetPaid(balance) : `${BALANCE_TEXT.owed(balance)} ${BALANCE_TEXT.charged(balance)}`}</p>}
      <p className="registration-actions">
        <a className="btn btn-primary" href={balance.payHref}>{BALANCE_TEXT.payNow}</a>
        <a className="btn btn-secondary" href={balance.cardHref}>{BALANCE_TEXT.anotherCard}</a>
      </p>
    </section>
  );
}

export interface BalancePayView {
  base: string;
  title: string;
  eventTitle: string;
  reference: string;
  /** null: nothing is owed any more (paid meanwhile). */
  balance: BalanceView | null;
  card: IslandProps<"ChangePayment"> | null;
  setupError: string | null;
}

/** "Pay the balance now": what is owed, and the card form (JavaScript, as every card payment of the site). */
export function BalancePayPage({ view }: { view: BalancePayView }) {
  return (
    <section className="section registration-page">
      <div className="container registration-container">
        <header className="registration-header">
          <p className="eyebrow">{view.eventTitle}</p>
          <h1>{BALANCE_TEXT.payTitle}</h1>
          <p className="lead">{`${view.title} · Registration ${view.reference}`}</p>
        </header>
        {/* From 1024 px the balance beside the payment (registration.css). */}
        <div className="payment-layout">
          {view.balance ? (
            <section className="card registration-section" aria-labelledby="balance-summary">
              <h2 id="balance-summary">{BALANCE_TEXT.heading}</h2>
              <SummaryRows rows={[["Deposit paid", formatPrice(view.balance.paidCents)], ["Balance", formatPrice(view.balance.owedCents)], ["Due", view.balance.dueText]]} />
            </section>
          ) : (
            <p className="card registration-section" role="status">Nothing is owed: your registration is paid in full.</p>
          )}
          {view.setupError ? <p className="card registration-section payment-error" role="alert">{view.setupError}</p> : null}
          {view.card ? <Widget name="ChangePayment" load="interaction" trigger=".registration-page" props={view.card} /> : null}
        </div>
        <p>
          <a className="btn btn-secondary" href={view.base}>Back to your registration</a>
        </p>
      </div>
    </section>
  );
}

export interface CardUpdateView {
  base: string;
  title: string;
  eventTitle: string;
  reference: string;
  /** The card the balance is charged to now. */
  cardText: string | null;
  /** null: no card can be saved now (nothing is owed, or the deposit's card was never saved). */
  form: IslandProps<"CardUpdate"> | null;
  message: string | null;
}

/** "Use another card": the card the next charge uses, and the form that saves a new one. */
export function CardUpdatePage({ view }: { view: CardUpdateView }) {
  return (
    <section className="section registration-page">
      <div className="container registration-container">
        <header className="registration-header">
          <p className="eyebrow">{view.eventTitle}</p>
          <h1>Use Another Card</h1>
          <p className="lead">{`${view.title} · Registration ${view.reference}`}</p>
        </header>
        <p className="card registration-section">{view.cardText ? `Your balance is charged to ${view.cardText}. A card you save here is used for the next charge instead.` : "A card you save here is used for the next charge of your balance."}</p>
        {view.message ? <p className="card registration-section" role="status">{view.message}</p> : null}
        {view.form ? <Widget name="CardUpdate" load="interaction" trigger=".registration-page" props={view.form} /> : null}
        <p>
          <a className="btn btn-secondary" href={view.base}>Back to your registration</a>
        </p>
      </div>
    </section>
  );
}
