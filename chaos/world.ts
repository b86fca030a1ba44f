import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { serviceEnvironment } from '../bench/bench-world';
import { freePort, waitForOk } from '../bench/processes';
import { startSandbox } from '../sandbox/start-sandbox';
import type { RunningSandbox } from '../sandbox/types';
import Redis from 'ioredis';
import { RedisKeys } from '../src/redis/redis-keys';
import { type OwnRedis, startOwnRedis } from '../test/utils/redis-server';
import { RedisProxy } from './redis-proxy';
import { Replica, replicaLog } from './replica';
import { CAMPAIGN_TIMING, type CampaignTiming } from './schedule';

export const EXTRAS = [
  { code: 'late-checkout', normalType: 'AFE', secondIdentifier: 'LATE_CHECKOUT', title: 'Late checkout', amount: 40 },
  { code: 'pet-fee', normalType: 'AFE', secondIdentifier: 'PET', title: 'Pet fee', amount: 30 },
] as const;

/** Where the 3-D Secure returns point: the balancer, which the campaign maps onto a replica. */
/** The replicas' Redis key prefix. */
export const CHAOS_KEY_PREFIX = 'chaos:';
export const BALANCER_URL = 'http://checkout.chaos.invalid';
export const SITE_RETURN_URL = 'http://site.chaos.invalid/checkout/done';

const PLENTY = { perSecond: 1_000, perMinute: 60_000, perHour: 1_000_000 };

/**
 * Three replicas of the built service (`node dist/src/main.js`) behind a balancer the campaign plays,
 * a Redis primary and its replica of the campaign's own (AOF, fsync always: a killed server comes
 * back with what it acknowledged) behind an address that follows the primary (a failover moves it),
 * and the sandbox as the platform, its record the judge.
 */
export interface ChaosWorld {
  sandbox: RunningSandbox;
  /** The primary now and its replica: a failover swaps them. */
  redis: { primary: OwnRedis; replica: OwnRedis; proxy: RedisProxy };
  replicas: Replica[];
  timing: CampaignTiming;
  /** A stay no earlier booking took: listing and dates. */
  nextStay(): { listingId: string; checkIn: string; checkOut: string };
  close(): Promise<void>;
}

export interface ChaosWorldOptions {
  /** The built service's entry point (dist/src/main.js). */
  mainScript: string;
  replicas?: number;
  timing?: CampaignTiming;
  /** A folder for each replica's log (JSON lines), to read after a failing seed. */
  logDir?: string;
}

export function replicaEnvironment(sandbox: RunningSandbox, redisUrl: string, timing: CampaignTiming): Record<string, string> {
  return {
    ...serviceEnvironment(sandbox.urls, redisUrl, CHAOS_KEY_PREFIX),
    // As production runs: a store found empty holds writes, and REDIS_WAIT_REPLICAS at its default
    // (auto) puts an intent on the Redis replica before its send, so the campaign proves the default.
    WRITE_HOLD_ON_NEW_STORE: 'true',
    PUBLIC_BASE_URL: BALANCER_URL,
    CHECKOUT_RETURN_URL: SITE_RETURN_URL,
    DOCS_ENABLED: 'false',
    UPSTREAM_TIMEOUT_MS: String(timing.upstreamTimeoutMs),
    UPSTREAM_DEADLINE_MS: String(timing.upstreamTimeoutMs),
    RESERVATION_LEASE_MS: String(timing.leaseMs),
    RESERVATION_WRITE_SPACING_MS: '100',
    WRITE_SETTLE_SECONDS: String(timing.settleSeconds),
    PAYMENT_STATUS_REFRESH_SECONDS: '1',
    UPSTREAM_RATE_LIMITS: '1000/s,60000/m,1000000/h',
    CHECKOUT_IP_RATE_LIMIT: '1000000/m',
    CHECKOUT_IP_READ_LIMIT: '1000000/m',
    CHECKOUT_CARD_ATTEMPTS: '100000/h',
    CHECKOUT_SESSIONS_PER_RESERVATION: '100000/h',
    BOOKING_HOLDS_PER_IP: '100000/h',
    BOOKING_UNPAID_HOLDS_PER_LISTING: '100000',
    BOOKING_UNPAID_NIGHTS_PER_LISTING: '100000',
    CHECKOUT_EXTRAS: JSON.stringify(EXTRAS),
  };
}

export async function startChaosWorld(options: ChaosWorldOptions): Promise<ChaosWorld> {
  const timing = options.timing ?? CAMPAIGN_TIMING;
  const primary = await startOwnRedis({ persistent: true });
  const replica = await startOwnRedis({ persistent: true, replicaOf: primary.port });
  const proxy = new RedisProxy(primary.port);
  await proxy.start();
  const redis = { primary, replica, proxy };
  // A store in service before the guests come: its generation is there, so writes are open at once.
  const seeding = new Redis(primary.url);
  await seeding.set(new RedisKeys(CHAOS_KEY_PREFIX).journal().generation, JSON.stringify({ id: 'chaos', writesFrom: 0 }));
  await seeding.quit();
  const sandbox = await startSandbox({ paymentVisibilityDelayMs: 0, chargeSettleDelayMs: 300, rateLimits: PLENTY, tokensPerDay: 1_000 });
  // Kept logs are read after a failing seed: they say what each request did (info), not only what went wrong.
  const env = { ...replicaEnvironment(sandbox, proxy.url, timing), ...(options.logDir ? { LOG_LEVEL: 'info' } : {}) };
  if (options.logDir) mkdirSync(options.logDir, { recursive: true });
  const replicas: Replica[] = [];
  for (let index = 0; index < (options.replicas ?? 3); index += 1) {
    const log = replicaLog(options.logDir && path.join(options.logDir, `replica-${index}.log`));
    replicas.push(new Replica(index, await freePort(), options.mainScript, env, log));
  }
  let stays = 0;
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const world: ChaosWorld = {
    sandbox,
    redis,
    replicas,
    timing,
    nextStay() {
      // One night on the city loft (no minimum beyond one), past its owner blocks; then two on the villa.
      const index = stays++;
      if (index < 300) return { listingId: 'lst-city', checkIn: day(40 + index), checkOut: day(41 + index) };
      const offset = 40 + 2 * (index - 300);
      return { listingId: 'lst-seaside', checkIn: day(offset), checkOut: day(offset + 2) };
    },
    async close() {
      await world.redis.primary.start();
      await Promise.all(replicas.map((replica) => replica.stop()));
      await sandbox.stop();
      await world.redis.proxy.stop();
      await world.redis.primary.dispose();
      await world.redis.replica.dispose();
    },
  };
  try {
    await Promise.all(replicas.map((replica) => replica.start()));
    // A deployment has its access token before guests come: minted now, not under the first faults
    // (a replica killed while minting holds the mint lock for its whole length).
    await waitForOk(`${replicas[0].url}/checkout/listings/lst-seaside`, 60_000);
  } catch (error) {
    await world.close();
    throw error;
  }
  return world;
}
