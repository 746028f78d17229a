// The Stripe objects the offline fake keeps, answers with and saves to its state file (fakeState.ts).

type Json = Record<string, unknown>;

export interface FakePaymentIntent {
  id: string;
  object: "payment_intent";
  amount: number;
  amount_received: number;
  currency: string;
  status: "requires_payment_method" | "requires_confirmation" | "requires_action" | "processing" | "succeeded" | "canceled";
  client_secret: string;
  customer: string | null;
  /** off_session: a successful payment attaches its card to the customer for later charges. */
  setup_future_usage: "off_session" | "on_session" | null;
  metadata: Record<string, string>;
  description: string | null;
  receipt_email: string | null;
  payment_method_types: string[];
  payment_method: string | null;
  latest_charge: string | null;
  last_payment_error: Json | null;
  /** Set while requires_action: what Stripe.js must do (here: the fake's 3-D Secure challenge). */
  next_action: Json | null;
  canceled_at: number | null;
  created: number;
  livemode: false;
}

export interface FakeCustomer {
  id: string;
  object: "customer";
  email: string | null;
  name: string | null;
  metadata: Record<string, string>;
  created: number;
  livemode: false;
}

export interface FakePaymentMethod {
  id: string;
  object: "payment_method";
  type: "card";
  card: { brand: string; last4: string; exp_month: number; exp_year: number; country: "US"; funding: "credit" };
  customer: string | null;
  created: number;
  livemode: false;
}

export interface FakeSetupIntent {
  id: string;
  object: "setup_intent";
  status: "requires_payment_method" | "requires_confirmation" | "requires_action" | "succeeded" | "canceled";
  client_secret: string;
  customer: string | null;
  usage: "off_session" | "on_session";
  payment_method: string | null;
  payment_method_types: string[];
  last_setup_error: Json | null;
  next_action: Json | null;
  metadata: Record<string, string>;
  created: number;
  livemode: false;
}

export interface FakeRefund {
  id: string;
  object: "refund";
  amount: number;
  charge: string;
  payment_intent: string;
  currency: string;
  status: "pending" | "succeeded" | "failed" | "canceled";
  failure_reason: string | null;
  reason: string | null;
  metadata: Record<string, string>;
  created: number;
}

/** The part of a Charge that charge.* events carry. */
export interface FakeCharge {
  id: string;
  object: "charge";
  amount: number;
  amount_refunded: number;
  currency: string;
  payment_intent: string;
  refunded: boolean;
  status: "succeeded";
  metadata: Record<string, string>;
}

export interface FakeEvent {
  id: string;
  object: "event";
  api_version: string;
  created: number;
  type: string;
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  data: { object: FakePaymentIntent | FakeCharge | FakeRefund | FakeSetupIntent };
}
