/** Wall-clock time, injectable so tests can move it (token expiry, refresh-ahead, ledgers). */
export abstract class Clock {
  abstract now(): number;
}

export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}
