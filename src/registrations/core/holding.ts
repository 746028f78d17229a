import { randomInt } from "node:crypto";
import type { Holder } from "./tables/holds.ts";

/** What every part needs to hold places for someone: a new reference, who is holding, and the refusals of the visitor cap. */

export const HOLD_TEXT = {
  visitorCap: (cap: number) =>
    `You are already holding places that are not paid for yet (at most ${cap} at once). Please complete or let go of those registrations first, or contact us for a larger group.`,
  teamTooLarge: (cap: number) => `A team can have at most ${cap} athletes. Please register the rest as a second team.`,
} as const;

const REFERENCE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
export function newReference(): string {
  let s = "R";
  for (let i = 0; i < 7; i++) s += REFERENCE_ALPHABET[randomInt(REFERENCE_ALPHABET.length)];
  return s;
}

/** Who is holding: the visitor's hashes, and the references their session made (a form id is only reused by its maker). */
export interface Visitor {
  holder: Holder;
  owned: string[];
}
