import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomInt, randomUUID } from 'node:crypto';
import { Clock } from '../common/clock';
import { DomainError } from '../common/errors/domain-error';
import { AppConfig } from '../config/app-config';
import { AccessToken, AccessTokens } from '../guesty/access-tokens';
import { GuestyTokenIssuer } from '../guesty/guesty-token-issuer';
import { UpstreamError } from '../guesty/upstream-error';
import { UpstreamMetrics } from '../guesty/upstream-metrics';
import { sleep } from '../guesty/retry-policy';
import { KeyValueStore } from '../redis/key-value-store';
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
const WAIT_FOR_MINTER_MS = 15_000;
const WRITE_BACK_EVERY_MS = 500;
// A replica holding a valid copy writes it back within WRITE_BACK_EVERY_MS; a minter finding no
// token waits this long for such a write-back before it spends one of the day's tokens.
const WRITE_BACK_GRACE_MS = 1_200;
const REFRESH_RETRY_MS = 30_000;
// A token minted because its predecessor was refused, refused again this soon: a permission problem.
const REFUSED_AFTER_REMINT_MS = 10 * 60_000;

/**
 * One access token for every replica (SPEC.md §1): kept in Redis encrypted, copied locally,
 * minted by one replica at a time under a lock, refreshed ahead of expiry, re-minted at most
 * once per generation on 401/403, and never beyond the 24 h allowance less the reserve.
 */
@Injectable()
export class SharedAccessTokens extends AccessTokens implements OnApplicationShutdown {
  private readonly logger = new Logger('AccessToken');
  private readonly keys: ReturnType<RedisKeys['accessToken']>;
  private readonly cipher: TokenCipher;
  private readonly ledger: MintLedger;
  private readonly allowance: number;
  private held?: HeldToken;
  private lookup?: Promise<AccessToken>;
  private refresh?: Promise<void>;
  private nextRefreshTry = 0;
  private readonly rejections = new Map<string, Promise<AccessToken | null>>();
  private readonly writeBack: NodeJS.Timeout;

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    redisKeys: RedisKeys,
    config: ConfigService<AppConfig, true>,
    private readonly clock: Clock,
    private readonly issuer: GuestyTokenIssuer,
    private readonly metrics: UpstreamMetrics,
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
    if (refused?.reason === 'rejected' && this.clock.now() - refused.mintedAt < REFUSED_AFTER_REMINT_MS) {
      this.logger.warn({ generation: token.id }, 'a freshly re-minted token was refused too: a permission problem, not the token');
      return null;
    }
    if (this.held?.id === token.id) this.held = undefined;
    const claimed = await this.guarded(() => this.store.set(this.keys.remintClaim(token.id), '1', { ifAbsent: true, ttlMs: LEDGER_WINDOW_MS }));
    if (!claimed) return this.waitForReplacement(token.id).catch(() => null);
    return this.mintOrWait('rejected', token.id, true);
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
    } catch (error) {
      // An answer lost after sending may still have spent a token: count it to stay on the safe side.
      if (error instanceof UpstreamError && error.upstreamStatus === undefined && error.maybeSent) await this.ledger.record(now);
      throw error;
    }
    await this.ledger.record(now);
    this.metrics.tokensMinted.inc({ reason });
    this.metrics.tokenBudgetLeft.set(Math.max(0, this.allowance - mints.length - 1));
    const id = randomUUID();
    const expiresAt = now + minted.expiresInSeconds * 1000;
    const stored: StoredToken = { id, expiresAt, mintedAt: now, reason, sealed: this.cipher.seal(minted.value, this.keys.token) };
    const token = this.hold(stored, minted.value);
    await this.store.set(this.keys.token, token.record, { ttlMs: expiresAt - now }).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'the new token could not be shared yet; it will be written back');
    });
    this.logger.log({ reason, generation: id, expiresAt: new Date(expiresAt).toISOString(), mintsInWindow: mints.length + 1 }, 'access token minted');
    return token;
  }

  private async waitForReplacement(replaces: string | null): Promise<AccessToken> {
    const deadline = Date.now() + WAIT_FOR_MINTER_MS;
    while (Date.now() < deadline) {
      await sleep(50 + randomInt(100));
      const latest = await this.guarded(() => this.readShared());
      if (latest && latest.id !== replaces && this.usable(latest)) return this.adopt(latest);
      if (!(await this.guarded(() => this.store.get(this.keys.mintLock)))) {
        const mints = await this.guarded(() => this.ledger.mintsInWindow());
        if (mints.length >= this.allowance) throw this.budgetExhausted(mints);
        break;
      }
    }
    throw new DomainError('upstream_unavailable', 'No access token is available yet; try again shortly.', { retryAfterSeconds: 1 });
  }

  private async awaitWriteBack(): Promise<HeldToken | null> {
    const deadline = Date.now() + WRITE_BACK_GRACE_MS;
    while (Date.now() < deadline) {
      await sleep(100);
      const latest = await this.readShared();
      if (latest) return latest;
    }
    return null;
  }

  private async writeBackIfLost(): Promise<void> {
    const held = this.held;
    if (!held || !this.usable(held)) return;
    try {
      const restored = await this.store.set(this.keys.token, held.record, { ifAbsent: true, ttlMs: held.expiresAt - this.clock.now() });
      await this.ledger.writeBack();
      if (restored) this.logger.warn({ generation: held.id }, 'the shared token was missing from Redis; wrote this replica\'s copy back');
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
    const token: HeldToken = { id: stored.id, value, expiresAt: stored.expiresAt, mintedAt: stored.mintedAt, reason: stored.reason, refreshAt, record: JSON.stringify(stored) };
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
    this.logger.error({ mintsInWindow: mints.length, allowance: this.allowance, retryAfterSeconds }, 'token budget exhausted: refusing to mint (the reserve is kept for a person)');
    return new DomainError('token_budget_exhausted', 'The service may not request another access token right now; try again later.', { retryAfterSeconds });
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
