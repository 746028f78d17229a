import type { Site } from "../site.ts";
import type { OutgoingEmail } from "../email/outbox.ts";
import type { Order } from "./repository.ts";
import { formatPrice } from "../money.ts";

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function lineLabel(i: Order["items"][number]): string {
  const details = [i.variantTitle !== "Default" && i.variantTitle !== "Default Title" ? i.variantTitle : null, i.selectedSize && !i.variantTitle.includes(i.selectedSize) ? `Size ${i.selectedSize}` : null]
    .filter(Boolean)
    .join(", ");
  return details ? `${i.productTitle} (${details})` : i.productTitle;
}

/** The shop order confirmation, written to the outbox in the transaction that marks the order paid. */
export function orderConfirmationEmail(site: Site, order: Order): OutgoingEmail {
  const lines = order.items.map((i) => `${i.quantity} x ${lineLabel(i)} @ ${formatPrice(i.unitPriceCents)} = ${formatPrice(i.lineTotalCents)}`);
  const text = [
    `Hi ${order.customer.firstName},`,
    "",
    `Thank you for your order with ${site.displayName}. Your payment was received and your order ${order.reference} is confirmed.`,
    "",
    ...lines,
    "",
    `Subtotal: ${formatPrice(order.subtotalCents)}`,
    "Shipping: calculated when your order ships",
    `Total paid: ${formatPrice(order.totalCents)}`,
    "",
    "Caps and tees ship starting June 25th; other items ship in 2-3 business days. Returns are accepted within 30 days (unworn, unwashed, in the original packaging).",
    "",
    `Questions? Reply to this e-mail, write to ${site.email} or call ${site.phone} (Monday to Friday, 9am to 5pm EST).`,
    "",
    site.displayName,
  ].join("\n");
  const html = `<!doctype html><html><body style="font-family:Arial,sans-serif;color:#111">
<h1 style="font-size:20px">Order ${escapeHtml(order.reference)} confirmed</h1>
<p>Hi ${escapeHtml(order.customer.firstName)}, thank you for your order with ${escapeHtml(site.displayName)}. Your payment was received.</p>
<table cellpadding="6" style="border-collapse:collapse">${order.items
    .map((i) => `<tr><td>${i.quantity} &times; ${escapeHtml(lineLabel(i))}</td><td align="right">${formatPrice(i.lineTotalCents)}</td></tr>`)
    .join("")}
<tr><td><strong>Total paid</strong></td><td align="right"><strong>${formatPrice(order.totalCents)}</strong></td></tr></table>
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
