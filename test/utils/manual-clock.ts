import { Clock } from '../../src/primitives/clock';

/** A wall clock a test moves forward (token refresh and expiry are hours away otherwise). */
export class ManualClock extends Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
