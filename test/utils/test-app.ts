import { Type } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import Redis from 'ioredis';
import { createApp } from '../../src/app.factory';
import { Clock } from '../../src/primitives/clock';
import { AppConfig } from '../../src/config/app-config';
import { isClusterUrl } from '../../src/config/redis-address';
import { DemoModule } from '../../sandbox/demo/demo.module';
import { RunningSandbox } from '../../sandbox/types';
import { contractDrift } from './contract-drift';
import { LogCapture } from './log-capture';
import { testConfig } from './test-config';

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  url: string;
  logs: LogCapture;
  /** Every key this app wrote, read straight from Redis. */
  redisKeys(): Promise<string[]>;
  /** Every key this app wrote with its value as text (a hash, set, sorted set or list as its members, one a line). */
  redisContents(): Promise<Map<string, string>>;
  close(): Promise<void>;
}

/** Boots the whole service on a random loopback port, on real Redis under its own key prefix. */
export async function startTestApp(
  env: Record<string, string | undefined> = {},
  options: { extraModules?: Type[]; config?: AppConfig; clock?: Clock; sandbox?: RunningSandbox } = {},
): Promise<TestApp> {
  const config = options.config ?? testConfig(env);
  const logs = new LogCapture();
  // The demo page is part of sandbox mode: served when the test runs the simulator for the app.
  const demo = options.sandbox ? [DemoModule.forSandbox(options.sandbox)] : [];
  const { app } = await createApp(config, {
    logDestination: logs,
    extraModules: [...(options.extraModules ?? []), ...demo],
    clock: options.clock,
  });
  await app.listen({ port: config.http.port, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  // A cluster is thrown away after its test file; key cleanup is for the shared single Redis.
  const redis =
    config.redis.url && !isClusterUrl(config.redis.url)
      ? new Redis(config.redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 })
      : undefined;
  const redisKeys = async (): Promise<string[]> => {
    if (!redis) return [];
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${config.redis.keyPrefix}*`, 'COUNT', 500);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    return keys;
  };
  const redisContents = async (): Promise<Map<string, string>> => {
    const contents = new Map<string, string>();
    if (!redis) return contents;
    for (const key of await redisKeys()) {
      const type = await redis.type(key);
      const members =
        type === 'string'
          ? [(await redis.get(key)) ?? '']
          : type === 'hash'
            ? Object.entries(await redis.hgetall(key)).flat()
            : type === 'zset'
              ? await redis.zrange(key, 0, -1, 'WITHSCORES')
              : type === 'set'
                ? await redis.smembers(key)
                : type === 'list'
                  ? await redis.lrange(key, 0, -1)
                  : [`(a ${type})`];
      contents.set(key, members.join('\n'));
    }
    return contents;
  };
  return {
    app,
    config,
    url: `http://127.0.0.1:${port}`,
    logs,
    redisKeys,
    redisContents,
    close: async () => {
      // Read before closing: a status this app answered that its route does not document fails the test file (contract-drift.ts).
      const drift = await contractDrift(app);
      await app.close();
      if (redis) {
        try {
          const keys = await redisKeys();
          if (keys.length > 0) await redis.del(...keys);
        } catch {
          // The test may have left its Redis stopped on purpose.
        }
        // Closed, not closing: a socket still closing after the file keeps jest's worker from exiting.
        if (redis.status !== 'end') {
          const ended = new Promise((resolve) => redis.once('end', resolve));
          redis.disconnect();
          await ended;
        }
      }
      if (drift.length > 0) throw new Error(`The service answered outside its documented contract:\n${drift.join('\n')}`);
    },
  };
}
