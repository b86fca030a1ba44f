import { ConfigService } from '@nestjs/config';
import { FailingStore, journalWorld, quietLogs, SteppingClock, unitConfig, unitModule } from '../../test/utils/unit-kit';
import { Clock } from '../primitives/clock';
import { KeyValueStore } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { GuestyTokenIssuer, MintedToken } from '../upstream/guesty-token-issuer';
import { UpstreamMetrics } from '../upstream/upstream-metrics';
import { SharedAccessTokens } from './shared-access-tokens';

const CLIENT_SECRET = 'client-secret-for-unit-tests';

/** The token endpoint: counts mints, and fails the next ones on demand. */
class FakeIssuer {
  minted: string[] = [];
  failNext = 0;

  asIssuer(): GuestyTokenIssuer {
    return {
      mint: (): Promise<MintedToken> => {
        if (this.failNext > 0) {
          this.failNext -= 1;
          return Promise.reject(new Error('the token endpoint answered 503'));
        }
        const value = `token-${this.minted.length + 1}-${'x'.repeat(40)}`;
        this.minted.push(value);
        return Promise.resolve({ value, expiresInSeconds: 86_400 });
      },
    } as GuestyTokenIssuer;
  }
}

const replicas: SharedAccessTokens[] = [];
beforeAll(quietLogs);
afterEach(() => replicas.splice(0).forEach((replica) => replica.onApplicationShutdown()));

/** Replicas of the service sharing one store and one token endpoint. */
function setUp(env: Record<string, string> = {}) {
  const clock = new SteppingClock();
  const store = new FailingStore(() => clock.now());
  const issuer = new FakeIssuer();
  const { service: config } = unitConfig({
    GUESTY_CLIENT_ID: 'client-id',
    GUESTY_CLIENT_SECRET: CLIENT_SECRET,
    CHECKOUT_RETURN_URL: 'http://localhost:8080/done',
    ...env,
  });
  // Each replica its own metrics, built by Nest's injector as the app builds it, on the one store, clock and token endpoint.
  const replica = async () => {
    const module = await unitModule(
      journalWorld(),
      [SharedAccessTokens, UpstreamMetrics],
      [
        [KeyValueStore, store],
        [Clock, clock],
        [ConfigService, config],
        [GuestyTokenIssuer, issuer.asIssuer()],
      ],
    );
    const tokens = module.get(SharedAccessTokens);
    replicas.push(tokens);
    return tokens;
  };
  return { clock, store, issuer, replica };
}

describe('SharedAccessTokens (one token for every replica)', () => {
  it('mints once for all replicas and keeps the token in the store only encrypted', async () => {
    const world = setUp();
    const [a, b] = [await world.replica(), await world.replica()];
    const first = await a.current();
    const second = await b.current();
    expect(second.value).toBe(first.value);
    expect(world.issuer.minted).toHaveLength(1);
    const stored = await world.store.get(new RedisKeys('t:').accessToken('client-id').token);
    expect(stored).not.toBeNull();
    expect(stored).not.toContain(first.value);
    expect(stored).not.toContain(CLIENT_SECRET);
  });

  it('a failed mint gives its claim back: the next request mints, and no day is lost', async () => {
    const world = setUp();
    const a = await world.replica();
    const token = await a.current();
    world.issuer.failNext = 1;
    await expect(a.rejected(token)).rejects.toBeDefined();
    const replacement = await a.rejected(token);
    expect(replacement?.value).toBe(world.issuer.minted[1]);
    expect(world.issuer.minted).toHaveLength(2);
  });

  it('replaces a refused token once per generation, however many requests saw it refused', async () => {
    const world = setUp();
    const [a, b] = [await world.replica(), await world.replica()];
    const token = await a.current();
    await b.current();
    const replacements = await Promise.all([a.rejected(token), a.rejected(token), b.rejected(token)]);
    expect(new Set(replacements.map((replacement) => replacement?.value))).toEqual(new Set([world.issuer.minted[1]]));
    expect(world.issuer.minted).toHaveLength(2);
  });

  it('a freshly minted token refused again is a permission problem: no loop that burns the day', async () => {
    const world = setUp();
    const a = await world.replica();
    const token = await a.current();
    const replacement = await a.rejected(token);
    await expect(a.rejected(replacement!)).resolves.toBeNull();
    expect(world.issuer.minted).toHaveLength(2);
  });

  it('keeps the reserve: past the allowance of the day it answers token_budget_exhausted, never a sixth mint', async () => {
    const world = setUp({ GUESTY_TOKENS_PER_DAY: '3', GUESTY_TOKEN_RESERVE: '1' });
    const a = await world.replica();
    const token = await a.current();
    world.clock.time += 1000;
    await a.rejected(token);
    // The replacement lives 24 h from the same minute: near its expiry the day's two mints are still in the ledger.
    world.clock.time += 86_400_000 - 30_000;
    await expect(a.current()).rejects.toMatchObject({ code: 'token_budget_exhausted', status: 503 });
    expect(world.issuer.minted).toHaveLength(2);
  });

  it('a day of refusals, bare or worded, quiet minutes apart or not, on two replicas, spends one token', async () => {
    const world = setUp();
    const [a, b] = [await world.replica(), await world.replica()];
    await a.current();
    const quiet = [1, 7, 11, 61, 0.1, 30];
    let kept = 0;
    let step = 0;
    for (; world.clock.time < 1_700_000_000_000 + 22 * 3_600_000; step++) {
      world.clock.time += quiet[step % quiet.length] * 60_000;
      const replica = step % 2 ? a : b;
      const refused = await replica.current();
      if ((await replica.rejected(refused)) === null) kept += 1;
    }
    // Two answers replaced the token: the mint, and the other replica finding it; every later refusal is kept.
    expect(step).toBeGreaterThan(70);
    expect(kept).toBe(step - 2);
    expect(world.issuer.minted).toHaveLength(2);
  });

  it("a refusal after the ledger's day may re-mint again, once", async () => {
    const world = setUp();
    const a = await world.replica();
    const first = (await a.rejected(await a.current()))!;
    world.clock.time += 86_400_000 + 60_000;
    // The first replacement has expired by now: its successor comes from the refresh, not a refusal.
    const refreshed = await a.current();
    expect(refreshed.id).not.toBe(first.id);
    expect(await a.rejected(refreshed)).not.toBeNull();
    expect(world.issuer.minted).toHaveLength(4);
  });
});
