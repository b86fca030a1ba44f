import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomInt, randomUUID } from 'node:crypto';
import { Clock } from '../primitives/clock';
import { DomainError } from '../common/errors/domain-error';
import { AppConfig } from '../config/app-config';
import { WAIT_FOR_MINTER_MS } from '../config/timing-rules';
import { AccessToken, AccessTokens } from '../upstream/access-tokens';
import { GuestyTokenIssuer } from '../upstream/guesty-token-issuer';
import { UpstreamError } from '../upstream/upstream-error';
import { UpstreamMetrics } from '../upstream/upstream-metrics';
import { MetricsService } from '../metrics/metrics.service';
import { KeyValueStore, steps } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { LEDGER_WINDOW_MS, MintLedger } from './mint-ledger';
import { SealedToken, TokenCipher } from './token-cipher';

type MintReason = 'initial' | 'refresh' | 'rejected';

interface StoredToken {
  id: string;
  expiresAt: number;
  mintedAt: number;
  reason: MintReason;
  sealed: SealedToken;
}

interface HeldToken extends AccessToken {
  mintedAt: number;
  reason: MintReason;
  /** This replica's moment to refresh ahead: 30–60 min before expiry, drawn per replica. */
  refreshAt: number;
  /** The stored form, for writing it back when Redis lost it. */
  record: string;
}

const UNUSABLE_BEFORE_EXPIRY_MS = 60_000;
const LOCK_TTL_MS = 20_000;
// The re-mint claim while its holder works: longer than it may wait for the lock and mint under it,
// short enough that a holder that died frees it soon. Kept for the ledger's day once it minted.
const CLAIM_TTL_MS = WAIT_FOR_MINTER_MS + LOCK_TTL_MS + 10_000;
const WRITE_BACK_EVERY_MS = 500;
// A replica holding a valid copy writes it back within WRITE_BACK_EVERY_MS; a minter finding no
// token waits this long for such a write-back before it spends one of the day's tokens.
const WRITE_BACK_GRACE_MS = 1_200;
const REFRESH_RETRY_MS = 30_000;

/**
 * Points a test can hold a mint at, to play a race deterministically (never set in production):
 * each is awaited (or called) at its point of the mint.
 */
export interface MintTestHooks {
  /** After this replica claimed the re-mint of a refused token, before it takes the mint lock. */
  afterClaim?: () => Promise<void>;
  /** After the token endpoint answered a token, before the ledger and the shared copy are written. */
  afterMint?: () => Promise<void>;
  /** This replica looked for another replica's new token, found none yet, and keeps waiting. */
  stillWaiting?: () => void;
}

/** The day's re-mint for a refusal: `minted` once its token replaced the refused one. */
interface RefusalRemint {
  claim: string;
  replaces: string;
  minted: boolean;
}

/**
 * One access token for every replica (docs/product-spec.md §1): kept in Redis encrypted, minted by
 * one replica at a time, never past the day's allowance less a reserve. A 401/403 re-mints at most
 * once a day: the platform cannot say whether it refused the token or the request, and a refusal
 * the new token meets again is the platform's.
 */
@Injectable()
export class SharedAccessTokens extends AccessTokens implements OnApplicationShutdown {
  private readonly logger = new Logger('AccessToken');
  private readonly keys: ReturnType<RedisKeys['accessToken']>;
  private readonly cipher: TokenCipher;
  private readonly ledger: MintLedger;
  private readonly allowance: number;
  private held?: HeldToken;
  /** A token this replica minted but could not write to Redis yet (written back once Redis answers). */
  private unshared?: string;
  private lookup?: Promise<AccessToken>;
  private refresh?: Promise<void>;
  private nextRefreshTry = 0;
  private readonly rejections = new Map<string, Promise<AccessToken | null>>();
  private readonly writeBack: NodeJS.Timeout;
  readonly testHooks: MintTestHooks = {};

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    redisKeys: RedisKeys,
    config: ConfigService<AppConfig, true>,
    private readonly clock: Clock,
    private readonly issuer: GuestyTokenIssuer,
    private readonly metrics: UpstreamMetrics,
    private readonly counters: MetricsService,
  ) {
    super();
    const guesty = config.get('guesty', { infer: true });
    this.keys = redisKeys.accessToken(guesty.clientId ?? '');
    this.cipher = new TokenCipher(guesty.clientSecret ?? '');
    this.ledger = new MintLedger(store, this.keys.mintLedger, () => clock.now());
    this.allowance = guesty.tokensPerDay - guesty.tokenReserve;
    this.writeBack = setInterval(() => void this.writeBackIfLost(), WRITE_BACK_EVERY_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.writeBack);
  }

  current(): Promise<AccessToken> {
    const held = this.held;
    if (held && this.usable(held)) {
      if (this.clock.now() >= held.refreshAt) this.refreshAhead(held);
      return Promise.resolve(held);
    }
    this.lookup ??= this.obtain().finally(() => (this.lookup = undefined));
    return this.lookup;
  }

  rejected(token: AccessToken): Promise<AccessToken | null> {
    if (this.held && this.held.id !== token.id && this.usable(this.held)) return Promise.resolve(this.held);
    let pending = this.rejections.get(token.id);
    if (!pending) {
      pending = this.replaceRejected(token).finally(() => this.rejections.delete(token.id));
      this.rejections.set(token.id, pending);
    }
    return pending;
  }

  private async obtain(): Promise<AccessToken> {
    const shared = await this.guarded(() => this.readShared());
    if (shared && this.usable(shared)) return this.adopt(shared);
    return this.mintOrWait(shared ? 'refresh' : 'initial', shared?.id ?? null, true) as Promise<AccessToken>;
  }

  private refreshAhead(held: HeldToken): void {
    if (this.refresh || this.clock.now() < this.nextRefreshTry) return;
    this.nextRefreshTry = this.clock.now() + REFRESH_RETRY_MS;
    this.refresh = (async () => {
      const shared = await this.readShared();
      if (shared && shared.id !== held.id && this.usable(shared)) {
        this.adopt(shared);
        return;
      }
      // Whoever holds the lock is refreshing already; this replica keeps its valid copy meanwhile.
      await this.mintOrWait('refresh', held.id, false);
    })()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'refresh ahead failed; the current token stays in use'))
      .finally(() => (this.refresh = undefined));
  }

  private async replaceRejected(token: AccessToken): Promise<AccessToken | null> {
    const shared = await this.guarded(() => this.readShared());
    if (shared && shared.id !== token.id && this.usable(shared)) return this.adopt(shared);
    const refused = [this.held, shared].find((candidate) => candidate?.id === token.id);
    if (refused?.reason === 'rejected') return this.platformRefusal(token.id, 'a token minted for a refusal was refused too');
    const claimKey = this.keys.refusalRemint;
    const claim: RefusalRemint = { claim: randomUUID(), replaces: token.id, minted: false };
    const claimed = await this.guarded(() => this.store.set(claimKey, JSON.stringify(claim), { ifAbsent: true, ttlMs: CLAIM_TTL_MS }));
    if (!claimed) {
      const raw = await this.guarded(() => this.store.get(claimKey));
      const earlier = raw ? (JSON.parse(raw) as RefusalRemint) : null;
      if (earlier?.minted) return this.platformRefusal(token.id, "a refusal has spent the day's re-mint already");
      // Another replica is replacing it: wait for its token (bounded), never answer "forbidden" for it.
      return this.waitForReplacement(token.id, claimKey);
    }
    if (this.held?.id === token.id) this.held = undefined;
    try {
      await this.testHooks.afterClaim?.();
      const replacement = await this.mintOrWait('rejected', token.id, true);
      // Minted: no refusal re-mints again within the ledger's day.
      const minted: RefusalRemint = { ...claim, minted: true };
      await this.store.set(claimKey, JSON.stringify(minted), { ttlMs: LEDGER_WINDOW_MS }).catch(() => undefined);
      return replacement;
    } catch (error) {
      await this.releaseClaim(claimKey, JSON.stringify(claim), token.id);
      throw error;
    }
  }

  /** The refusal is the platform's (a permission, a resource): no token is spent on it. */
  private platformRefusal(generation: string, why: string): null {
    this.counters.tokenRefusalsKept.inc();
    this.logger.warn({ generation }, `${why}: a permission problem, not the token; no token minted`);
    return null;
  }

  /** A mint that failed gives its claim back at once: the next request may try again, within the ledger. */
  private async releaseClaim(claimKey: string, claim: string, generation: string): Promise<void> {
    const released = await this.store.deleteIfEquals(claimKey, claim).catch(() => false);
    this.counters.tokenClaimReleases.inc();
    this.logger.warn(
      { generation, released },
      released ? 're-mint failed; released its claim' : 're-mint failed; its claim expires shortly',
    );
  }

  /** Mints under the lock, unless another replica did meanwhile; without the lock, waits for its holder. */
  private async mintOrWait(reason: MintReason, replaces: string | null, waitIfLocked: boolean): Promise<AccessToken | null> {
    const lockValue = randomUUID();
    const locked = await this.guarded(() => this.store.set(this.keys.mintLock, lockValue, { ifAbsent: true, ttlMs: LOCK_TTL_MS }));
    if (!locked) return waitIfLocked ? this.waitForReplacement(replaces) : null;
    try {
      let latest = await this.readShared();
      if (!latest && !this.held) latest = await this.awaitWriteBack();
      if (latest && latest.id !== replaces && this.usable(latest)) return this.adopt(latest);
      return await this.mint(reason);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      throw DomainError.storeUnavailable(error);
    } finally {
      await this.store.deleteIfEquals(this.keys.mintLock, lockValue).catch(() => undefined);
    }
  }

  private async mint(reason: MintReason): Promise<AccessToken> {
    const mints = await this.ledger.mintsInWindow();
    if (mints.length >= this.allowance) throw this.budgetExhausted(mints);
    const now = this.clock.now();
    let minted;
    try {
      minted = await this.issuer.mint();
      await this.testHooks.afterMint?.();
    } catch (error) {
      // An answer lost after sending may still have spent a token: count it to stay on the safe side.
      if (error instanceof UpstreamError && error.upstreamStatus === undefined && error.maybeSent) await this.recordMint(now);
      throw error;
    }
    // Held before anything is written: a token is one of the day's five, and Redis failing now must not lose it.
    const id = randomUUID();
    const expiresAt = now + minted.expiresInSeconds * 1000;
    const stored: StoredToken = { id, expiresAt, mintedAt: now, reason, sealed: this.cipher.seal(minted.value, this.keys.token) };
    const token = this.hold(stored, minted.value);
    this.metrics.tokensMinted.inc({ reason });
    this.metrics.tokenBudgetLeft.set(Math.max(0, this.allowance - mints.length - 1));
    await this.recordMint(now);
    await this.store.set(this.keys.token, token.record, { ttlMs: expiresAt - now }).catch((error: unknown) => {
      this.unshared = id;
      this.logger.warn({ err: error }, 'the new token could not be shared yet; it will be written back');
    });
    this.logger.log(
      { reason, generation: id, expiresAt: new Date(expiresAt).toISOString(), mintsInWindow: mints.length + 1 },
      'access token minted',
    );
    return token;
  }

  /** The mint is in the ledger kept locally at once; a ledger Redis could not take is written back later. */
  private async recordMint(at: number): Promise<void> {
    await this.ledger.record(at).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'the mint could not be written to the shared ledger yet; it will be written back');
    });
  }

  /**
   * Waits for the replica that holds the mint lock, or the re-mint claim `claimKey`, to share its
   * new token. Gives up (503, never "forbidden") when neither is held any more without a new token
   * (its mint failed), or after WAIT_FOR_MINTER_MS.
   */
  private async waitForReplacement(replaces: string | null, claimKey?: string): Promise<AccessToken> {
    const deadline = this.clock.now() + WAIT_FOR_MINTER_MS;
    while (this.clock.now() < deadline) {
      await this.clock.sleep(50 + randomInt(100));
      const latest = await this.guarded(() => this.readShared());
      if (latest && latest.id !== replaces && this.usable(latest)) return this.adopt(latest);
      const [lock, claim] = await this.guarded(() =>
        Promise.all([this.store.get(this.keys.mintLock), claimKey ? this.store.get(claimKey) : null]),
      );
      if (!lock && !claim) {
        const mints = await this.guarded(() => this.ledger.mintsInWindow());
        if (mints.length >= this.allowance) throw this.budgetExhausted(mints);
        break;
      }
      this.testHooks.stillWaiting?.();
    }
    throw new DomainError('upstream_unavailable', 'No access token is available yet; try again shortly.', { retryAfterSeconds: 1 });
  }

  private async awaitWriteBack(): Promise<HeldToken | null> {
    const deadline = this.clock.now() + WRITE_BACK_GRACE_MS;
    while (this.clock.now() < deadline) {
      await this.clock.sleep(100);
      const latest = await this.readShared();
      if (latest) return latest;
    }
    return null;
  }

  private async writeBackIfLost(): Promise<void> {
    const held = this.held;
    if (!held || !this.usable(held)) return;
    try {
      const ttlMs = held.expiresAt - this.clock.now();
      let restored: boolean;
      if (this.unshared === held.id) {
        // Minted while Redis failed: it replaces what Redis holds unless another replica minted later.
        const raw = await this.store.get(this.keys.token);
        const stored = raw ? (JSON.parse(raw) as StoredToken) : null;
        restored = !stored || (stored.id !== held.id && stored.mintedAt < held.mintedAt);
        if (restored) await this.store.set(this.keys.token, held.record, { ttlMs });
        this.unshared = undefined;
        await this.ledger.writeBack();
      } else {
        // The usual tick: the token and the ledger put back where Redis lost them, in one step.
        const ledger = this.ledger.writeBackStep();
        const [wrote] = await this.store.batch([steps.writeIfMissing(this.keys.token, held.record, ttlMs), ...(ledger ? [ledger] : [])]);
        restored = wrote === true;
        if (!ledger) await this.ledger.writeBack();
      }
      if (restored) this.logger.warn({ generation: held.id }, "the shared token was missing from Redis; wrote this replica's copy back");
    } catch {
      // Redis is down: readiness says so; the local copy keeps serving.
    }
  }

  private async readShared(): Promise<HeldToken | null> {
    const raw = await this.store.get(this.keys.token);
    if (!raw) return null;
    const stored = JSON.parse(raw) as StoredToken;
    if (this.held?.id === stored.id) return this.held;
    const value = this.cipher.open(stored.sealed, this.keys.token);
    if (value === null) {
      this.logger.error('the shared token does not open with this client secret; ignoring it');
      return null;
    }
    return this.hold(stored, value, false);
  }

  private hold(stored: StoredToken, value: string, adopt = true): HeldToken {
    const refreshAt = stored.expiresAt - randomInt(30 * 60_000, 60 * 60_000);
    const token: HeldToken = {
      id: stored.id,
      value,
      expiresAt: stored.expiresAt,
      mintedAt: stored.mintedAt,
      reason: stored.reason,
      refreshAt,
      record: JSON.stringify(stored),
    };
    if (adopt) this.held = token;
    return token;
  }

  private adopt(token: HeldToken): HeldToken {
    this.held = token;
    return token;
  }

  private usable(token: AccessToken): boolean {
    return token.expiresAt - UNUSABLE_BEFORE_EXPIRY_MS > this.clock.now();
  }

  private budgetExhausted(mints: number[]): DomainError {
    const retryAfterSeconds = Math.max(1, Math.ceil((mints[0] + LEDGER_WINDOW_MS - this.clock.now()) / 1000));
    this.metrics.tokenBudgetLeft.set(0);
    this.logger.error(
      { mintsInWindow: mints.length, allowance: this.allowance, retryAfterSeconds },
      'token budget exhausted: refusing to mint (the reserve is kept for a person)',
    );
    return new DomainError('token_budget_exhausted', 'The service may not request another access token right now; try again later.', {
      retryAfterSeconds,
    });
  }

  /** Runs a store operation; without Redis no replica may mint (N replicas would mean N mints). */
  private async guarded<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw DomainError.storeUnavailable(error);
    }
  }
}
