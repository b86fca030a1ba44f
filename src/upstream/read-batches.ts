import DataLoader from 'dataloader';
import { Priority } from './outbound-rate-limiter';

/**
 * How long a read waits for others of its kind before it leaves: long enough that the requests of a
 * busy minute share calls, short beside the platform's own latency.
 */
export const READ_BATCH_WINDOW_MS = 5;

/**
 * Reads the platform answers for many keys in one call (Reservations V3: 10 ids; the folio overview:
 * 200), asked for by separate requests: those of one priority within READ_BATCH_WINDOW_MS leave
 * together, `max` keys a call. Nothing is remembered past the call: a batch is as fresh as a single read.
 */
export class ReadBatches<V> {
  private readonly loaders = new Map<Priority, DataLoader<string, V>>();

  constructor(
    private readonly read: (keys: string[], priority: Priority) => Promise<V[]>,
    private readonly max: number,
  ) {}

  load(key: string, priority: Priority): Promise<V> {
    let loader = this.loaders.get(priority);
    if (!loader) {
      loader = new DataLoader<string, V>((keys) => this.readDistinct(keys, priority), {
        maxBatchSize: this.max,
        cache: false,
        batchScheduleFn: (send) => setTimeout(send, READ_BATCH_WINDOW_MS),
      });
      this.loaders.set(priority, loader);
    }
    return loader.load(key);
  }

  /** A key two requests asked for is read once; each gets its answer. */
  private async readDistinct(keys: readonly string[], priority: Priority): Promise<V[]> {
    const distinct = [...new Set(keys)];
    const answers = await this.read(distinct, priority);
    const byKey = new Map(distinct.map((key, index) => [key, answers[index]]));
    return keys.map((key) => byKey.get(key) as V);
  }
}
