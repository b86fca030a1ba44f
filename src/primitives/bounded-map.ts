/**
 * Sets `key` as the newest entry of a map kept in insertion order, first dropping the oldest entry
 * when the map already holds `max`: the one bound every replica-local cache here keeps.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}
