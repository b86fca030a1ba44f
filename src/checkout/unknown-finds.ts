import { Wakeups } from '../common/wakeups';

/** Misses of the last window, with finds on their way, that a replica reads at checkout priority (see UnknownFinds). */
export const UNKNOWN_FIND_MISSES = 5;
export const UNKNOWN_FINDS_WINDOW_MS = 60_000;
/** How long a find waits for one on its way to end before it goes to the anonymous share. */
export const UNKNOWN_FIND_WAIT_MS = 2_000;

/** A find at checkout priority (see UnknownFinds.taken). */
export interface UnknownFind {
  ended(missed: boolean): void;
}

interface Allowance {
  misses: number;
  windowMs: number;
  waitMs: number;
}

/**
 * How this replica finds reservation ids it does not know (docs/product-spec.md §7): at checkout
 * priority while misses of the window and finds on their way stay within the allowance, so an
 * unannounced guest does not wait behind anonymous traffic. Past it a find waits for one to end;
 * once misses fill it, finds go to the anonymous share.
 */
export class UnknownFinds {
  private inFlight = 0;
  private readonly misses: number[] = [];
  private readonly ends = new Wakeups();

  constructor(
    private readonly now: () => number,
    private readonly allowance: Allowance = {
      misses: UNKNOWN_FIND_MISSES,
      windowMs: UNKNOWN_FINDS_WINDOW_MS,
      waitMs: UNKNOWN_FIND_WAIT_MS,
    },
  ) {}

  /** A find at checkout priority, with what ends it; null for the anonymous share. */
  async take(): Promise<UnknownFind | null> {
    const deadline = this.now() + this.allowance.waitMs;
    for (;;) {
      const since = this.now() - this.allowance.windowMs;
      while (this.misses.length > 0 && this.misses[0] <= since) this.misses.shift();
      if (this.misses.length >= this.allowance.misses) return null;
      if (this.misses.length + this.inFlight < this.allowance.misses) return this.taken();
      const left = deadline - this.now();
      if (left <= 0) return null;
      await this.ends.next(left);
    }
  }

  /**
   * `ended`: the first call frees the find's place (the find read answered, or the lookup ended);
   * a call with `missed` counts its miss, once, also after the place was freed (a wrong email is
   * known only once the guest is read).
   */
  private taken(): UnknownFind {
    this.inFlight += 1;
    let freed = false;
    let counted = false;
    return {
      ended: (missed) => {
        if (missed && !counted) {
          counted = true;
          this.misses.push(this.now());
        }
        if (freed) return;
        freed = true;
        this.inFlight -= 1;
        this.ends.wakeAll();
      },
    };
  }
}
