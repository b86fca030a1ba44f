import Redis, { RedisOptions } from 'ioredis';
import { KeyValueStore, SetOptions } from './key-value-store';

const DELETE_IF_EQUALS = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/**
 * Options for the request path: while Redis is down or hung a command fails within about a
 * second (no offline queue, a command timeout) so callers answer a clean 503 instead of hanging;
 * the client keeps reconnecting in the background so recovery needs no restart.
 */
export const REQUEST_PATH_REDIS_OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  commandTimeout: 1_000,
  connectTimeout: 2_000,
  maxRetriesPerRequest: 1,
  retryStrategy: (attempt: number) => Math.min(100 * 2 ** attempt, 2_000),
  lazyConnect: false,
};

export class RedisKeyValueStore extends KeyValueStore {
  readonly kind = 'redis' as const;

  constructor(readonly client: Redis) {
    super();
  }

  static connect(url: string): RedisKeyValueStore {
    const client = new Redis(url, REQUEST_PATH_REDIS_OPTIONS);
    // Errors surface on the commands that fail and in readiness; without a listener ioredis would
    // print every reconnect failure as an unhandled error event.
    client.on('error', () => undefined);
    return new RedisKeyValueStore(client);
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }

  whenConnected(timeoutMs: number): Promise<boolean> {
    if (this.client.status === 'ready') return Promise.resolve(true);
    return new Promise((resolve) => {
      const onReady = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.client.off('ready', onReady);
        resolve(false);
      }, timeoutMs);
      this.client.once('ready', onReady);
    });
  }

  get(key: string): Promise<string | null> {
    return this.client.get(key);
  }

  async set(key: string, value: string, options: SetOptions = {}): Promise<boolean> {
    const args: (string | number)[] = [];
    if (options.ttlMs !== undefined) args.push('PX', Math.max(1, Math.ceil(options.ttlMs)));
    if (options.ifAbsent) args.push('NX');
    const reply = await this.client.call('SET', key, value, ...args);
    return reply === 'OK';
  }

  take(key: string): Promise<string | null> {
    return this.client.getdel(key);
  }

  async delete(...keys: string[]): Promise<void> {
    if (keys.length > 0) await this.client.del(...keys);
  }

  async deleteIfEquals(key: string, value: string): Promise<boolean> {
    const deleted = await this.client.eval(DELETE_IF_EQUALS, 1, key, value);
    return deleted === 1;
  }

  async ttlMs(key: string): Promise<number | null> {
    const ttl = await this.client.pttl(key);
    return ttl >= 0 ? ttl : null;
  }

  async close(): Promise<void> {
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}
