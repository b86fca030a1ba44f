import { BatchStep, KeyValueStore, steps } from '../redis/key-value-store';

export const LEDGER_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Every mint of the client id, by time, over the rolling 24 h the upstream counts (5 tokens a
 * day). Written only under the mint lock. A local copy lets a replica put it back if Redis
 * loses it, so a flush does not make the service forget what it already spent.
 */
export class MintLedger {
  private known: number[] = [];
  /** A mint kept locally that Redis has not taken yet. */
  private unrecorded = false;

  constructor(
    private readonly store: KeyValueStore,
    private readonly key: string,
    private readonly now: () => number,
  ) {}

  async mintsInWindow(): Promise<number[]> {
    const raw = await this.store.get(this.key);
    const stored = raw ? (JSON.parse(raw) as number[]) : [];
    this.known = this.recent([...new Set([...stored, ...this.known])]);
    return this.known;
  }

  /** Kept locally first, so a mint Redis cannot take now is still counted and written back later. */
  async record(at: number): Promise<void> {
    this.known = this.recent([...this.known, at]);
    this.unrecorded = true;
    const mints = await this.mintsInWindow();
    await this.store.set(this.key, JSON.stringify(mints), { ttlMs: LEDGER_WINDOW_MS });
    this.unrecorded = false;
  }

  /**
   * The usual write-back as a step of the caller's batch (the ledger shares the token's slot): the
   * local copy, where the shared one is gone. Null when there is nothing to put back, or when a mint
   * Redis could not take must be written in full (writeBack).
   */
  writeBackStep(): (BatchStep & { op: 'set' }) | null {
    const mints = this.recent(this.known);
    if (this.unrecorded || mints.length === 0) return null;
    return steps.writeIfMissing(this.key, JSON.stringify(mints), LEDGER_WINDOW_MS);
  }

  /** Puts the local copy back when the shared one is gone, or lacks a mint Redis could not take. */
  async writeBack(): Promise<void> {
    if (this.unrecorded) {
      const mints = await this.mintsInWindow();
      await this.store.set(this.key, JSON.stringify(mints), { ttlMs: LEDGER_WINDOW_MS });
      this.unrecorded = false;
      return;
    }
    const mints = this.recent(this.known);
    if (mints.length > 0) await this.store.set(this.key, JSON.stringify(mints), { ttlMs: LEDGER_WINDOW_MS, ifAbsent: true });
  }

  private recent(mints: number[]): number[] {
    const since = this.now() - LEDGER_WINDOW_MS;
    return mints.filter((at) => at > since).sort((a, b) => a - b);
  }
}
