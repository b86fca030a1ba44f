/** Exponential backoff with full jitter (the upstream's retry guidance): a random wait up to the cap. */
export function backoffDelayMs(attempt: number, baseMs = 100, capMs = 2_000): number {
  return Math.random() * Math.min(capMs, baseMs * 2 ** attempt);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
