import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service';

const RETRY_EVERY_MS = 250;
const FLUSH_ON_SHUTDOWN_MS = 2_000;

interface KeptWrite {
  what: string;
  write: () => Promise<void>;
}

/**
 * Writes that record what already happened upstream (a card attached, an item added) must reach the
 * store even when it is down (docs/product-spec.md §6.6): a failed one is kept in memory, in order,
 * and retried until the store answers. Writes with the same `slot` replace each other: only a
 * record's latest state is worth writing.
 */
@Injectable()
export class StoreOutbox implements OnApplicationShutdown {
  private readonly logger = new Logger('StoreOutbox');
  private readonly kept = new Map<string, KeptWrite>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(@Inject(MetricsService) private readonly metrics: MetricsService) {}

  /** Writes now; when the store fails, keeps the write and answers false (the caller goes on). */
  async write(slot: string, what: string, write: () => Promise<void>): Promise<boolean> {
    // An older kept write of this record must not land after this one.
    this.kept.delete(slot);
    try {
      await write();
      return true;
    } catch (cause) {
      this.kept.set(slot, { what, write });
      this.metrics.outboxKept.set(this.kept.size);
      this.logger.warn(
        { err: cause, what },
        'the store did not take a write that records an upstream outcome; kept in memory and retried until it does',
      );
      this.schedule();
      return false;
    }
  }

  get pending(): number {
    return this.kept.size;
  }

  /** Tries every kept write once, oldest first; stops at the first failure (the store is still down). */
  flush(): Promise<void> {
    this.flushing ??= this.flushOnce().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    for (const [slot, kept] of [...this.kept.entries()]) {
      try {
        await kept.write();
      } catch {
        this.schedule();
        return;
      }
      if (this.kept.get(slot) === kept) this.kept.delete(slot);
      this.logger.log({ what: kept.what }, 'a kept write reached the store');
    }
    this.metrics.outboxKept.set(this.kept.size);
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, RETRY_EVERY_MS).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.kept.size === 0) return;
    await Promise.race([this.flush(), new Promise((resolve) => setTimeout(resolve, FLUSH_ON_SHUTDOWN_MS).unref())]);
    if (this.kept.size > 0) {
      this.logger.error(
        { kept: [...this.kept.values()].map((kept) => kept.what) },
        'stopping with writes the store never took; the sweep of another replica reconciles them from the platform',
      );
    }
  }
}
