/**
 * The spec's shipping, returns, custom order and support constants, and the contact FAQ answered from them.
 * Browser-safe.
 */
import { FREE_SHIPPING_THRESHOLD_CENTS } from "../catalogue/rules.ts";
import { formatDollars } from "../money.ts";

export const SHIPPING = {
  freeOverCents: FREE_SHIPPING_THRESHOLD_CENTS,
  freeDeliveryBusinessDays: { min: 2, max: 3 },
  standardBusinessDays: { min: 3, max: 5 },
  standardRegion: "the continental US",
} as const;

export const RETURNS = {
  days: 30,
  condition: "unworn, unwashed items in their original packaging",
  customOrders: "custom team orders are final sale unless defective",
} as const;

export const CUSTOM_ORDERS = { productionDays: { min: 20, max: 60 }, shippingNote: "about a week" } as const;

export const SUPPORT_HOURS = { days: "Monday to Friday", open: "9am", close: "5pm", timeZone: "EST" } as const;

export function supportHoursText(): string {
  return `${SUPPORT_HOURS.days}, ${SUPPORT_HOURS.open} to ${SUPPORT_HOURS.close} ${SUPPORT_HOURS.timeZone}`;
}



export interface FaqEntry {
  question: string;
  answer: string;
}

export function contactFaq(): FaqEntry[] {
  const s = SHIPPING;
  return [
    {
      question: "How long does shipping take?",
      answer:
        `Standard shipping takes ${s.standardBusinessDays.min}-${s.standardBusinessDays.max} business days in ${s.standardRegion}. ` +
        `Orders over ${formatDollars(s.freeOverCents)} ship free and arrive in ${s.freeDeliveryBusinessDays.min}-${s.freeDeliveryBusinessDays.max} business days.`,
    },
    {
      question: "What is your return policy?",
      answer:
        `You have ${RETURNS.days} days to return ${RETURNS.condition}. ` +
        `Because they are made to order, ${RETURNS.customOrders}.`,
    },
    {
      question: "How long do custom team orders take?",
      answer:
        `Custom team orders take ${CUSTOM_ORDERS.productionDays.min}-${CUSTOM_ORDERS.productionDays.max} days from approved design to finished gear, ` +
        `plus ${CUSTOM_ORDERS.shippingNote} to ship. Planning for a tournament? Reach out early and we will build the schedule backwards from your date.`,
    },
    {
      question: "When can I reach your team?",
      answer: `Our team answers e-mail and phone calls ${supportHoursText()}. Messages sent after hours are answered the next business day.`,
    },
  ];
}
