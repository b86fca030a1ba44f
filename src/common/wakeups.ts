/**
 * Callers waiting for something to end, woken together when it does: each waits until woken or
 * until its own `ms` pass, then looks again for itself (a wake is a hint, never a grant).
 */
export class Wakeups {
  private readonly waiting = new Set<() => void>();

  /** Until the next wakeAll, or `ms` pass. */
  next(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiting.add(wake);
    });
  }

  wakeAll(): void {
    const woken = [...this.waiting];
    this.waiting.clear();
    for (const wake of woken) wake();
  }
}
