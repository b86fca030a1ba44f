/**
 * Keys present after a request that were not before. Rate-window keys of one second may expire
 * meanwhile on a loaded machine, so "nothing written" is "nothing added", not "the same list".
 */
export function keysAdded(before: string[], after: string[]): string[] {
  const known = new Set(before);
  return after.filter((key) => !known.has(key));
}
