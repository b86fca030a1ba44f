/**
 * The service's own housekeeping, one key each whatever the traffic: the journal sweep's lock (taken
 * on a timer), the outbound budget's windows (reborn with any upstream call, which tests count at the
 * sandbox) and the count of anonymous records (its hour restarts with the first record made after).
 * A request that "wrote nothing" may coincide with them.
 */
const HOUSEKEEPING = [/:journal:sweep-lock$/, /\{upstream-budget\}/, /:anonymous-records$/];

/**
 * Keys present after a request that were not before, housekeeping aside. Rate-window keys of one
 * second may expire meanwhile on a loaded machine, so "nothing written" is "nothing added", not "the same list".
 */
export function keysAdded(before: string[], after: string[]): string[] {
  const known = new Set(before);
  return after.filter((key) => !known.has(key) && !HOUSEKEEPING.some((pattern) => pattern.test(key)));
}
