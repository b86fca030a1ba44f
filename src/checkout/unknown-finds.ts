/** Misses of the last window after which a replica finds unknown ids at the anonymous share (see UnknownFinds). */
export const UNKNOWN_FIND_MISSES = 5;
export const UNKNOWN_FINDS_WINDOW_MS = 60_000;
/** Finds of unknown ids on their way at once at checkout priority while none missed lately: two batched reads' worth. */
export const UNKNOWN_FINDS_AT_ONCE = 20;

/**
 * How this replica finds reservation ids it does not know (docs/product-spec.md §7): at checkout
 * priority while few lately were misses, so an unannounced guest does not wait behind anonymous
 * traffic; at the anonymous share past the allowance, so guesses spend that share. Counted in the
 * replica, with no round trip.
 */
export class UnknownFinds {
  private inFlight = 0;
  private readonly misses: number[] = [];

  constructor(
    private readonly now: () => number,
    private readonly allowance = { misses: UNKNOWN_FIND_MISSES, atOnce: UNKNOWN_FINDS_AT_ONCE, windowMs: UNKNOWN_FINDS_WINDOW_MS },
  ) {}

  /** A find at checkout priority, with what ends it; null when the allowance is spent. */
  take(): { ended(missed: boolean): void } | null {
    const since = this.now() - this.allowance.windowMs;
    while (this.misses.length > 0 && this.misses[0] <= since) this.misses.shift();
    // Once a miss was seen, finds on their way count as misses to come: a burst cannot outrun them.
    const atOnce = this.misses.length === 0 ? this.allowance.atOnce : this.allowance.misses - this.misses.length;
    if (this.misses.length >= this.allowance.misses || this.inFlight >= atOnce) return null;
    this.inFlight += 1;
    let done = false;
    return {
      ended: (missed) => {
        if (done) return;
        done = true;
        this.inFlight -= 1;
        if (missed) this.misses.push(this.now());
      },
    };
  }
}
