import fs from "node:fs";
import path from "node:path";
import type { Logger } from "../../logger.ts";
import type { FakeCustomer, FakeEvent, FakePaymentIntent, FakePaymentMethod, FakeRefund, FakeSetupIntent } from "./fakeObjects.ts";

type Json = Record<string, unknown>;

/** What the fake keeps in its state file (development): enough to go on after the app restarts, as Stripe would. */
export interface SavedState {
  version: 1;
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
  intents: FakePaymentIntent[];
  refunds: FakeRefund[];
  cardOf: [string, string][];
  /** Keyed by the key alone (files written before endpoints were kept have "path key" entries: harmless, never matched). */
  idempotency: [string, { hash: string; at: number; endpoint?: string; response?: { status: number; body: Json } }][];
  /** Events not delivered yet, with the attempt and time of their next delivery. */
  pending: { event: FakeEvent; attempt: number; dueAt: number }[];
  laterPayments: string[];
  laterRefunds: [string, "succeeded" | "failed"][];
  /** Saved cards (absent from files written before they existed). */
  customers?: FakeCustomer[];
  paymentMethods?: FakePaymentMethod[];
  setupIntents?: FakeSetupIntent[];
  pmCards?: [string, string][];
  setUpOffSession?: string[];
}

export function readState(file: string | undefined, logger: Logger | undefined): SavedState | undefined {
  if (!file || !fs.existsSync(file)) return undefined;
  try {
    const state = JSON.parse(fs.readFileSync(file, "utf8")) as SavedState;
    return state.version === 1 ? state : undefined;
  } catch (err) {
    logger?.warn({ err: (err as Error).message }, "offline Stripe state file unreadable; starting empty");
    return undefined;
  }
}

/** Written whole to a temporary file, then renamed: a crash mid-write leaves the previous state. */
export function writeState(file: string, state: SavedState): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(state));
  fs.renameSync(temporary, file);
}
