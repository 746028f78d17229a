import type { Site } from "../shared/site.ts";
import type { OutgoingEmail } from "../email/outbox.ts";
import type { Order } from "../shared/orders/types.ts";
import { formatPrice } from "../shared/money.ts";
import { addressLines, shippingLabel } from "../shared/orders/rules.ts";
import { variantText } from "../shared/cart/rules.ts";
import { shipsStartingNote } from "../shared/catalogue/rules.ts";
import { RETURNS, SHIPPING, supportHoursText } from "../shared/inbox/policies.ts";

/** When the order leaves: caps and tees wait for the configured day while it is ahead (with its year). */
function shippingTimes(shipsLater: string | null): string {
  const standard = `${SHIPPING.standardBusinessDays.min}-${SHIPPING.standardBusinessDays.max} business days`;
  return shipsLater ? `Caps and tees: ${shipsLater.charAt(0).toLowerCase()}${shipsLater.slice(1)}; other items ship in ${standard}.` : `Your order ships in ${standard}.`;
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function lineLabel(i: Order["items"][number]): string {
  const details = variantText(i);
  return details ? `${i.productTitle} (${details})` : i.productTitle;
}

/**
 * The shop order confirmation, written to the outbox in the transaction that marks the order paid: the items,
 * the shipping address and cost, the total, and the link to the order's status page.
 */
export function orderConfirmationEmail(site: Site, order: Order, statusUrl: string): OutgoingEmail {
  const lines = order.items.map((i) => `${i.quantity} x ${lineLabel(i)} @ ${formatPrice(i.unitPriceCents)} = ${formatPrice(i.lineTotalCents)}`);
  const address = order.shippingAddress ? addressLines(order.shippingAddress) : [];
  const text = [
    `Hi ${order.customer.firstName},`,
    "",
    `Thank you for your order with ${site.displayName}. Your payment was received and your order ${order.reference} is confirmed.`,
    "",
    ...lines,
    "",
    `Subtotal: ${formatPrice(order.subtotalCents)}`,
    `Shipping: ${shippingLabel(order.shippingCents)}`,
    `Total paid: ${formatPrice(order.totalCents)}`,
    "",
    ...(address.length > 0 ? ["Shipping to:", ...address, ""] : []),
    `Your order's status: ${statusUrl}`,
    "",
    `${shippingTimes(shipsStartingNote(site.shipsStarting, order.paidAt ?? new Date()))} ` +
      `Returns are accepted within ${RETURNS.days} days (unworn, unwashed, in the original packaging).`,
    "",
    `Questions? Reply to this e-mail, write to ${site.email} or call ${site.phone} (${supportHoursText()}).`,
    "",
    site.displayName,
  ].join("\n");
  const row = (label: string, value: string, strong = false) =>
    `<tr><td>${strong ? `<strong>${label}</strong>` : label}</td><td align="right">${strong ? `<strong>${value}</strong>` : value}</td></tr>`;
  const html = `<!doctype html><html><body style="font-family:Arial,sans-serif;color:#111">
<h1 style="font-size:20px">Order ${escapeHtml(order.reference)} confirmed</h1>
<p>Hi ${escapeHtml(order.customer.firstName)}, thank you for your order with ${escapeHtml(site.displayName)}. Your payment was received.</p>
<table cellpadding="6" style="border-collapse:collapse">${order.items
    .map((i) => row(`${i.quantity} &times; ${escapeHtml(lineLabel(i))}`, formatPrice(i.lineTotalCents)))
    .join("")}
${row("Subtotal", formatPrice(order.subtotalCents))}${row("Shipping", shippingLabel(order.shippingCents))}${row("Total paid", formatPrice(order.totalCents), true)}</table>
${address.length > 0 ? `<p><strong>Shipping to</strong><br>${address.map(escapeHtml).join("<br>")}</p>` : ""}
<p><a href="${escapeHtml(statusUrl)}">See your order's status</a></p>
<p>Questions? Write to ${escapeHtml(site.email)} or call ${escapeHtml(site.phone)}.</p></body></html>`;
  return {
    kind: "order_confirmation",
    reference: `order:${order.reference}`,
    to: order.customer.email,
    replyTo: site.email,
    subject: `Your ${site.displayName} order ${order.reference} is confirmed`,
    text,
    html,
  };
}

/**
 * A refund of a shop order succeeded (an operator's, or one made in Stripe's dashboard): how much of what was paid has
 * now been refunded in all. Sent once per refund that succeeds.
 */
export function orderRefundedEmail(site: Site, order: Order, refundedCents: number, full: boolean): OutgoingEmail {
  const what = full
    ? `Your payment of ${formatPrice(order.totalCents)} for order ${order.reference} has been refunded in full.`
    : `A refund was made on your order ${order.reference}: ${formatPrice(refundedCents)} of the ${formatPrice(order.totalCents)} you paid has now been refunded.`;
  const text = [
    `Hi ${order.customer.firstName},`,
    "",
    what,
    "Depending on your bank, the refund shows on your card within 5 to 10 business days.",
    "",
    `If this is not what you expected, reply to this e-mail, write to ${site.email} or call ${site.phone}.`,
    "",
    site.displayName,
  ].join("\n");
  return {
    kind: "order_refunded",
    reference: `order:${order.reference}`,
    to: order.customer.email,
    replyTo: site.email,
    subject: `Refund on your ${site.displayName} order ${order.reference}`,
    text,
  };
}
