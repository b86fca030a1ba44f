/** Wall-clock time, injectable so tests can move it (token expiry, refresh-ahead, ledgers). */
export abstract class Clock {
  abstract now(): number;

  /** Waits `ms` of this clock: real time here; a test clock moves itself instead of waiting. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
  }
}

export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}
