import DataLoader from 'dataloader';
import { Priority } from './outbound-rate-limiter';

/**
 * How long a read asked for while another of its priority is under way waits for more before it
 * leaves: long enough that the requests of a busy moment share calls, short beside the platform's
 * latency. A read with none under way leaves at once (only the reads of its own turn join it).
 */
export const READ_BATCH_WINDOW_MS = 5;
/** How long a batch waits, at most, for the call before it to be granted its budget slot. */
export const READ_BATCH_HOLD_MS = 1_000;

/**
 * `granted`: told once the call holds its slot of the outbound budget and is about to leave. An
 * Error in a key's place fails that key's read alone.
 */
export type BatchRead<V> = (keys: string[], priority: Priority, granted: () => void) => Promise<(V | Error)[]>;

/**
 * Reads the platform answers for many keys a call (Reservations V3: 10; the folio overview: 200):
 * one priority's reads within READ_BATCH_WINDOW_MS leave together while another is under way (a
 * lone read pays no window). While a call waits for its budget slot (a flood), the next batch
 * keeps taking keys, so a busy budget is spent on full calls.
 */
export class ReadBatches<V> {
  private readonly loaders = new Map<Priority, DataLoader<string, V>>();
  /** The last call of each priority not yet granted its slot. */
  private readonly ungranted = new Map<Priority, Promise<void>>();
  /** Each priority's reads asked for and not answered yet. */
  private readonly underWay = new Map<Priority, number>();

  constructor(
    private readonly read: BatchRead<V>,
    private readonly max: number,
  ) {}

  load(key: string, priority: Priority): Promise<V> {
    let loader = this.loaders.get(priority);
    if (!loader) {
      loader = new DataLoader<string, V>((keys) => this.readDistinct(keys, priority), {
        maxBatchSize: this.max,
        cache: false,
        batchScheduleFn: (send) => this.schedule(priority, () => void this.afterEarlierGranted(priority).then(send)),
      });
      this.loaders.set(priority, loader);
    }
    // Counted after DataLoader scheduled its batch: the batch this read opens sees only the others.
    const read = loader.load(key);
    this.underWay.set(priority, (this.underWay.get(priority) ?? 0) + 1);
    const done = () => {
      const left = (this.underWay.get(priority) ?? 1) - 1;
      if (left > 0) this.underWay.set(priority, left);
      else this.underWay.delete(priority);
    };
    read.then(done, done);
    return read;
  }

  /** A batch opened while another read of its priority is under way waits the window; one opened alone leaves this turn. */
  private schedule(priority: Priority, send: () => void): void {
    if (this.underWay.has(priority)) setTimeout(send, READ_BATCH_WINDOW_MS);
    else setImmediate(send);
  }

  private async afterEarlierGranted(priority: Priority): Promise<void> {
    const earlier = this.ungranted.get(priority);
    if (!earlier) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([earlier, new Promise<void>((resolve) => (timer = setTimeout(resolve, READ_BATCH_HOLD_MS)))]);
    clearTimeout(timer);
  }

  /** A key two requests asked for is read once; each gets its answer. */
  private async readDistinct(keys: readonly string[], priority: Priority): Promise<(V | Error)[]> {
    const distinct = [...new Set(keys)];
    let granted!: () => void;
    const grant = new Promise<void>((resolve) => (granted = resolve));
    this.ungranted.set(priority, grant);
    try {
      const answers = await this.read(distinct, priority, granted);
      const byKey = new Map(distinct.map((key, index) => [key, answers[index]]));
      return keys.map((key) => byKey.get(key) as V | Error);
    } finally {
      granted();
      if (this.ungranted.get(priority) === grant) this.ungranted.delete(priority);
    }
  }
}
