/** The sandbox's notion of now: the injected clock plus an offset tests move forward instead of sleeping. */
export class SandboxClock {
  private offsetMs = 0;

  constructor(private readonly base: () => number) {}

  now(): number {
    return this.base() + this.offsetMs;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new Error('advanceClock takes a non-negative number of ms');
    this.offsetMs += ms;
  }

  reset(): void {
    this.offsetMs = 0;
  }
}
