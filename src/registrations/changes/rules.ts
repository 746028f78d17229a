/**
 * Changes that cost money (an upgrade, athletes added to a team): the server's prices, pure. An upgrade costs the
 * list price of the new package minus the list price of the one paid for (a registration paid with a discount code
 * is not offered the change); each added athlete costs the event's team price as stored now.
 */
export function upgradeChoices<P extends { code: string; label: string; priceCents: number }>(packages: readonly P[], current: { packageCode: string; listPriceCents: number }): (P & { differenceCents: number })[] {
  return packages
    .filter((p) => p.code !== current.packageCode && p.priceCents > current.listPriceCents)
    .map((p) => ({ ...p, differenceCents: upgradeDifferenceCents(current.listPriceCents, p.priceCents)! }));
}

/** What moving from a package paid at `paidListCents` to one listed at `newPriceCents` costs; null when it is not dearer. */
export function upgradeDifferenceCents(paidListCents: number, newPriceCents: number): number | null {
  if (!Number.isInteger(paidListCents) || !Number.isInteger(newPriceCents) || newPriceCents <= paidListCents) return null;
  return newPriceCents - paidListCents;
}

/** What adding `count` athletes to a team costs at the team price; null for no athlete or no price. */
export function addedAthletesCents(count: number, teamPriceCents: number): number | null {
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(teamPriceCents) || teamPriceCents <= 0) return null;
  return count * teamPriceCents;
}

/** Whether a team of `active` athletes may take `adding` more: never past the per-team ceiling. */
export function teamHasRoom(active: number, adding: number, maxTeamAthletes: number): boolean {
  return adding >= 1 && active + adding <= maxTeamAthletes;
}
