import { ConfigService } from '@nestjs/config';
import { journalWorld, quietLogs, unitConfig, unitModule } from '../../../test/utils/unit-kit';
import { idempotencyClaimMs, requestMayRunMs } from '../../config/timing-rules';
import { KeyValueStore } from '../../redis/key-value-store';
import { MemoryKeyValueStore } from '../../redis/memory-key-value-store';
import { DomainError } from '../errors/domain-error';
import { IdempotencyService, StoredAnswer } from './idempotency.service';

/** The fault campaign's clocks (chaos/schedule.ts): a 2 s timeout and lease, a 10 s horizon. */
const CAMPAIGN = { UPSTREAM_TIMEOUT_MS: '2000', UPSTREAM_DEADLINE_MS: '2000', RESERVATION_LEASE_MS: '2000', WRITE_SETTLE_SECONDS: '10' };
const KEY = 'key-0123456789abcdef';
const BODY = { card: 'the same body' };
/** How often a guest presses again while told 409 (the campaign's guests: 300 ms). */
const PRESS_AGAIN_MS = 300;

const never = () => new Promise<StoredAnswer<string>>(() => undefined);
const answered = (body: string) => () => Promise.resolve({ status: 200, body });

/**
 * Replicas of one deployment on one store, with the timers of their claims faked (jest moves them).
 * `kill` stops a replica where it stands: nothing it sends reaches the store any more.
 */
function deployment(env: Record<string, string>) {
  const shared = new MemoryKeyValueStore();
  const { service: config } = unitConfig(env);
  const replica = async () => {
    let dead = false;
    const store = new Proxy(shared, {
      get: (target, name, receiver) => {
        const member: unknown = Reflect.get(target, name, receiver);
        if (typeof member !== 'function') return member;
        return (...args: unknown[]) => (dead ? new Promise(() => undefined) : (member as (...a: unknown[]) => unknown).apply(target, args));
      },
    });
    // Each replica its own floor (metrics, outbox), built by Nest's injector as the app builds it, on the one store.
    const module = await unitModule(
      journalWorld(env),
      [IdempotencyService],
      [
        [KeyValueStore, store],
        [ConfigService, config],
      ],
    );
    return Object.assign(module.get(IdempotencyService), { kill: () => (dead = true) });
  };
  return { config, replica };
}

/** The guest pressing again on `replica` until its own work runs there: how long that took, or null when `limitMs` passed first. */
async function pressUntilRun(replica: IdempotencyService, limitMs: number): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started <= limitMs) {
    try {
      const answer = await replica.run('payment-method:s-1', KEY, BODY, answered('from the retry'));
      if (!answer.replayed) return Date.now() - started;
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'idempotency_in_progress')) throw error;
    }
    await jest.advanceTimersByTimeAsync(PRESS_AGAIN_MS);
  }
  return null;
}

describe('Idempotency-Key claims (docs/product-spec.md §6.9)', () => {
  beforeAll(quietLogs);
  beforeEach(() => jest.useFakeTimers({ now: 1_700_000_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('gives the key back to the guest once its request has run longer than any request may (its work stuck on a call)', async () => {
    const { config, replica } = deployment({});
    const [stuck, other] = [await replica(), await replica()];
    void stuck.run('payment-method:s-1', KEY, BODY, never).catch(() => undefined);
    await jest.advanceTimersByTimeAsync(0);

    const limit = requestMayRunMs(config.get('guesty', { infer: true }));
    const tookMs = await pressUntilRun(other, limit + idempotencyClaimMs({ reservationLeaseMs: 10_000 }) + 1_000);
    expect(tookMs).not.toBeNull();
    // Not before: until then the request may still be working, and a second run would meet it.
    expect(tookMs).toBeGreaterThanOrEqual(limit);
  });

  it("frees a killed replica's key within the reservation's lease: the guest's retries settle within the campaign's patience", async () => {
    const { config, replica } = deployment(CAMPAIGN);
    const [killed, other] = [await replica(), await replica()];
    void killed.run('payment-method:s-1', KEY, BODY, never).catch(() => undefined);
    // Ten seconds into a slow attach and its re-reads, the replica is killed: nothing of it runs any more.
    await jest.advanceTimersByTimeAsync(10_500);
    killed.kill();

    const tookMs = await pressUntilRun(other, 30_000);
    expect(tookMs).not.toBeNull();
    expect(tookMs).toBeLessThanOrEqual(config.get('reservationWrites', { infer: true }).leaseMs + 1_000 + PRESS_AGAIN_MS);
    // The campaign's guest gives up at horizon + sweep + 2 × timeout after its first press.
    expect(10_500 + tookMs!).toBeLessThan(10_000 + 6_000 + 2 * 2_000);
  });

  it('keeps the answer of the press that holds the key, not that of a stuck press ending after its claim lapsed', async () => {
    const { config, replica } = deployment(CAMPAIGN);
    const [slow, other] = [await replica(), await replica()];
    let finish: (answer: StoredAnswer<string>) => void = () => undefined;
    const late = slow.run('payment-method:s-1', KEY, BODY, () => new Promise<StoredAnswer<string>>((resolve) => (finish = resolve)));
    await jest.advanceTimersByTimeAsync(requestMayRunMs(config.get('guesty', { infer: true })));

    expect(await pressUntilRun(other, 10_000)).not.toBeNull();
    finish({ status: 200, body: 'from the stuck press' });
    await expect(late).resolves.toMatchObject({ body: 'from the stuck press', replayed: false });

    await expect(other.run('payment-method:s-1', KEY, BODY, never)).resolves.toEqual({
      status: 200,
      body: 'from the retry',
      replayed: true,
    });
  });
});
