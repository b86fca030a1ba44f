import { KeyValueStore, SlotAnswer, SlotRequest } from '../../redis/key-value-store';
import { MemoryKeyValueStore } from '../../redis/memory-key-value-store';

/** The ceiling's window: records made are counted per hour, from the first one made after the last hour ended. */
export const RECORDS_WINDOW_MS = 3_600_000;
/**
 * Logs a replica keeps in its own memory at most once the ceiling is reached (the oldest made
 * dropped first): a flood needs more fresh networks than this to win back its allowance.
 */
export const LOGS_KEPT_HERE = 50_000;

/** What the ceiling tells its owner: records made, and where; the ceiling reached until when. */
export interface RecordsReport {
  made(where: 'store' | 'here', count: number): void;
  reached(endsInMs: number): void;
}

/**
 * The request-limit logs anonymous traffic makes in Redis, within ANONYMOUS_RECORDS_PER_HOUR for
 * every replica together: a flood of fresh addresses meets this before a full Redis fails the
 * journal's writes. Rights to make logs come in blocks; a take from an existing log spends none.
 * Past the ceiling a new log is made in this replica's memory, its limits held.
 */
export class AnonymousRecords {
  /** The records this replica may still make without asking the shared count. */
  private inHand = 0;
  /** performance.now() until which the shared count is spent. */
  private spentUntil = 0;
  private asking: Promise<void> | undefined;
  private readonly block: number;
  readonly here: MemoryKeyValueStore;

  constructor(
    private readonly store: KeyValueStore,
    private readonly countKey: string,
    private readonly ceiling: number,
    private readonly report: RecordsReport,
    private readonly now: () => number = () => performance.now(),
  ) {
    // A hundredth of the ceiling a block: few round trips, and little left unused in replicas' hands.
    this.block = Math.max(1, Math.ceil(ceiling / 100));
    this.here = new MemoryKeyValueStore(now, LOGS_KEPT_HERE);
  }

  /** Whether the ceiling is reached, as this replica last heard. */
  get reached(): boolean {
    return this.now() < this.spentUntil;
  }

  /** Milliseconds until the ceiling's hour ends, while it is reached; 0 otherwise. */
  get reachedForMs(): number {
    return Math.max(0, this.spentUntil - this.now());
  }

  /**
   * Slots of `requests` (each may make a log) taken by `send` where they are counted: here when this
   * replica counts one of their logs, else in the store, making logs only within the ceiling, else
   * here. `answersOf` reads send's answers (one per request tried). Answers what was sent, and where.
   */
  async take<T>(
    requests: SlotRequest[],
    send: (by: KeyValueStore, requests: SlotRequest[]) => Promise<T>,
    answersOf: (sent: T) => SlotAnswer[],
  ): Promise<{ sent: T; by: KeyValueStore }> {
    if (requests.some((request) => this.here.keepsLog(request.windowKeys[0]))) return this.takeHere(requests, send, answersOf);
    const wanted = requests.length;
    if (this.spend(wanted)) return this.takeMaking(requests, send, answersOf);
    const sent = await send(this.store, marked(requests, 'refuse'));
    if (!answersOf(sent).some((answer) => answer.absent)) return { sent, by: this.store };
    if (await this.spendAsking(wanted)) return this.takeMaking(requests, send, answersOf);
    return this.takeHere(requests, send, answersOf);
  }

  private async takeMaking<T>(
    requests: SlotRequest[],
    send: (by: KeyValueStore, requests: SlotRequest[]) => Promise<T>,
    answersOf: (sent: T) => SlotAnswer[],
  ): Promise<{ sent: T; by: KeyValueStore }> {
    let made = 0;
    try {
      const sent = await send(this.store, marked(requests, 'tell'));
      made = answersOf(sent).filter((answer) => answer.made).length;
      if (made > 0) this.report.made('store', made);
      return { sent, by: this.store };
    } finally {
      // What was not made goes back to hand; a failed send made nothing this replica can count on.
      this.inHand += requests.length - made;
    }
  }

  private async takeHere<T>(
    requests: SlotRequest[],
    send: (by: KeyValueStore, requests: SlotRequest[]) => Promise<T>,
    answersOf: (sent: T) => SlotAnswer[],
  ): Promise<{ sent: T; by: KeyValueStore }> {
    const sent = await send(this.here, marked(requests, 'tell'));
    const made = answersOf(sent).filter((answer) => answer.made).length;
    if (made > 0) this.report.made('here', made);
    return { sent, by: this.here };
  }

  private spend(wanted: number): boolean {
    if (this.inHand < wanted) return false;
    this.inHand -= wanted;
    return true;
  }

  /** Spends `wanted` once the shared count gave this replica enough (one asking at a time); false once it is spent. */
  private async spendAsking(wanted: number): Promise<boolean> {
    while (!this.spend(wanted)) {
      if (this.reached) return false;
      this.asking ??= this.ask(wanted).finally(() => (this.asking = undefined));
      await this.asking;
    }
    return true;
  }

  private async ask(wanted: number): Promise<void> {
    const asked = Math.max(this.block, wanted);
    const { taken, endsInMs } = await this.store.takeCount(this.countKey, asked, this.ceiling, RECORDS_WINDOW_MS);
    this.inHand += taken;
    if (taken < asked) {
      this.spentUntil = this.now() + endsInMs;
      this.report.reached(endsInMs);
    }
  }
}

function marked(requests: SlotRequest[], newRecord: 'tell' | 'refuse'): SlotRequest[] {
  return requests.map((request) => ({ ...request, newRecord }));
}
