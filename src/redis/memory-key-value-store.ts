import { KeyValueStore, SetOptions } from './key-value-store';

interface Entry {
  value: string;
  expiresAt: number | null;
}

/** The in-process store for a single development replica; state dies with the process. */
export class MemoryKeyValueStore extends KeyValueStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt !== null && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  whenConnected(): Promise<boolean> {
    return Promise.resolve(true);
  }

  get(key: string): Promise<string | null> {
    return Promise.resolve(this.live(key)?.value ?? null);
  }

  set(key: string, value: string, options: SetOptions = {}): Promise<boolean> {
    if (options.ifAbsent && this.live(key)) return Promise.resolve(false);
    const expiresAt = options.ttlMs !== undefined ? this.now() + Math.max(1, Math.ceil(options.ttlMs)) : null;
    this.entries.set(key, { value, expiresAt });
    return Promise.resolve(true);
  }

  take(key: string): Promise<string | null> {
    const entry = this.live(key);
    this.entries.delete(key);
    return Promise.resolve(entry?.value ?? null);
  }

  delete(...keys: string[]): Promise<void> {
    for (const key of keys) this.entries.delete(key);
    return Promise.resolve();
  }

  deleteIfEquals(key: string, value: string): Promise<boolean> {
    if (this.live(key)?.value !== value) return Promise.resolve(false);
    this.entries.delete(key);
    return Promise.resolve(true);
  }

  ttlMs(key: string): Promise<number | null> {
    const entry = this.live(key);
    return Promise.resolve(entry?.expiresAt != null ? entry.expiresAt - this.now() : null);
  }

  close(): Promise<void> {
    this.entries.clear();
    return Promise.resolve();
  }
}
