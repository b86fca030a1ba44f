import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../src/app.factory';
import { parseConfiguration } from '../src/config/parse-configuration';
import { webhookSubscription } from '../sandbox/runtime/webhooks';
import { startSandbox } from '../sandbox/start-sandbox';
import { RunningSandbox, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, SandboxOptions, SandboxUrls } from '../sandbox/types';

export interface BenchInstance {
  url: string;
  /** The instance's application, for scenarios that reach into it (scenario 9 holds its granted calls). */
  app: NestFastifyApplication;
  close(): Promise<void>;
}

export interface BenchWorld {
  sandbox: RunningSandbox;
  instances: BenchInstance[];
  /** The Redis the instances share, and their key prefix (this run's keys only). */
  redisUrl: string;
  prefix: string;
  close(): Promise<void>;
}

const quiet = new Writable({ write: (_chunk, _encoding, callback) => callback() });

/** The sandbox with a fixed latency, and N service instances on one Redis under a fresh prefix. */
export async function startBenchWorld(
  instances: number,
  options: { env?: Record<string, string>; sandbox?: SandboxOptions; webhooks?: boolean } = {},
): Promise<BenchWorld> {
  // `webhooks`: the platform's signed webhooks go to the first instance, as a subscribed account's do.
  const subscription = webhookSubscription(options.webhooks === true);
  const sandbox = await startSandbox({ latencyMs: 20, ...options.sandbox, ...subscription.sandbox });
  const redisUrl = benchRedisUrl();
  const prefix = benchKeyPrefix();
  const config = parseConfiguration({
    ...serviceEnvironment(sandbox.urls, redisUrl, prefix),
    NODE_ENV: 'test',
    ...subscription.env,
    ...options.env,
  });
  const started: BenchInstance[] = [];
  for (let i = 0; i < instances; i += 1) {
    const { app } = await createApp(config, { logDestination: quiet });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.getHttpServer().address();
    const port = typeof address === 'object' && address ? address.port : 0;
    started.push({ url: `http://127.0.0.1:${port}`, app, close: () => app.close() });
  }
  sandbox.control.setWebhookTarget(subscription.target(started[0].url));
  return {
    sandbox,
    instances: started,
    redisUrl,
    prefix,
    close: async () => {
      for (const instance of started) await instance.close();
      await sandbox.stop();
      await deleteKeys(redisUrl, prefix);
    },
  };
}

export const benchRedisUrl = (): string => process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const benchKeyPrefix = (): string => `bench:${randomBytes(4).toString('hex')}:`;

/** A production-like instance (not sandbox mode) pointed at the simulator, on its own key prefix. */
export function serviceEnvironment(urls: SandboxUrls, redisUrl: string, prefix: string): Record<string, string> {
  return {
    LOG_LEVEL: 'warn',
    LOG_PRETTY: 'false',
    SANDBOX: 'false',
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: prefix,
    GUESTY_CLIENT_ID: SANDBOX_CLIENT_ID,
    GUESTY_CLIENT_SECRET: SANDBOX_CLIENT_SECRET,
    GUESTY_API_URL: urls.apiUrl,
    GUESTY_PAY_URL: urls.payUrl,
    CHECKOUT_RETURN_URL: 'http://localhost:8080/done',
    // The simulator starts with the run: no write sent before this store can land.
    WRITE_HOLD_ON_NEW_STORE: 'false',
    // The platform's surface the sandbox serves follows the same variable (sandbox/types.ts startingReadings).
    ...(process.env.GUESTY_API_SURFACE ? { GUESTY_API_SURFACE: process.env.GUESTY_API_SURFACE } : {}),
  };
}

/** Round trips to Redis an instance has made so far, from its own metrics (a script counts once). */
export async function redisRoundTrips(serviceUrl: string): Promise<number> {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  const line = /^redis_commands_total (\d+)/m.exec(text);
  return line ? Number(line[1]) : 0;
}

/** A bench run's own keys, removed when it ends. */
export async function deleteKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The most requests that fell in any window of `windowMs`, from arrival times. */
export function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end += 1) {
    while (sorted[end] - sorted[start] >= windowMs) start += 1;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

export async function timed(url: string, init?: RequestInit): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}
