import { IDEMPOTENCY_KEY_FORMAT, IDEMPOTENCY_KEY_PATTERN } from './idempotency-key-format';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AppConfig } from '../../config/app-config';
import { idempotencyClaimMs, requestMayRunMs } from '../../config/timing-rules';
import { MetricsService } from '../../metrics/metrics.service';
import { AtRestCipher, AtRestCiphers } from '../../redis/at-rest-cipher';
import { KeyValueStore, RecordRead, StepsBeside, steps } from '../../redis/key-value-store';
import { RedisKeys } from '../../redis/redis-keys';
import { StoreOutbox } from '../../redis/store-outbox';
import { DomainError } from '../errors/domain-error';
import { BodyFingerprint } from './body-fingerprint';
import {
  IdempotencyRecord,
  StoredAnswer,
  isFinalError,
  isOutcomePending,
  isRefusal,
  parseRecord,
  replayedError,
  storedError,
} from './idempotency-record';

export type { StoredAnswer } from './idempotency-record';

export type IdempotentAnswer<T> = StoredAnswer<T> & { replayed: boolean };

/**
 * For work on a checkout session whose last write shares its record's hash slot (the session's): the
 * steps that store the answer as the key's record, to be run in the same step as that write. Once
 * they ran (`written`), the answer is not written again; until then it is, as any answer.
 */
export type AnswerBeside<T> = StepsBeside<StoredAnswer<T>>;

/** How long an answer is kept (docs/product-spec.md §3). */
export const IDEMPOTENCY_RECORD_TTL_MS = 24 * 60 * 60 * 1000;

/** Claim, read, claim again: the record can expire or be released between a failed claim and the read. */
const CLAIM_ATTEMPTS = 3;

/**
 * Idempotency-Key handling for write routes, shared by every replica through the store: the first
 * request with a key claims it and runs; a retry with the same body gets the stored answer without
 * running again; another body under the key is a 422, and a retry while the first still runs a 409.
 */
@Injectable()
export class IdempotencyService {
  private readonly fingerprints: BodyFingerprint;
  private readonly answers: AtRestCipher;
  private readonly logger = new Logger('Idempotency');
  /** How long a claim blocks the key unrenewed (timing-rules.ts): a replica that died frees it within this. */
  readonly claimMs: number;
  /** How long a claim is renewed at most: work running longer is stuck, and the key goes back to the guest. */
  readonly renewForMs: number;

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    @Inject(RedisKeys) private readonly keys: RedisKeys,
    @Inject(ConfigService) config: ConfigService<AppConfig, true>,
    @Inject(MetricsService) private readonly metrics: MetricsService,
    @Inject(StoreOutbox) private readonly outbox: StoreOutbox,
    @Inject(AtRestCiphers) ciphers: AtRestCiphers,
  ) {
    this.answers = ciphers.for('stored-answer');
    this.claimMs = idempotencyClaimMs({ reservationLeaseMs: config.get('reservationWrites', { infer: true }).leaseMs });
    this.renewForMs = requestMayRunMs(config.get('guesty', { infer: true }));
    // Configuration lets the secret be absent only in sandbox mode, where only test cards flow.
    this.fingerprints = new BodyFingerprint(config.get('guesty', { infer: true }).clientSecret ?? '');
  }

  /**
   * Runs `work` once per (scope, key): `scope` names the operation and its target, e.g.
   * `payment-method:<sessionId>`; the part before the first ":" labels the replay metric.
   */
  async run<T>(
    scope: string,
    idempotencyKey: string | undefined,
    body: unknown,
    work: () => Promise<StoredAnswer<T>>,
  ): Promise<IdempotentAnswer<T>> {
    const recordKey = this.keys.idempotencyRecord(scope, checkedKey(idempotencyKey));
    return this.claimAndRun(
      scope,
      recordKey,
      body,
      () => work(),
      async (claim) => {
        if (await this.storeCall(() => this.store.set(recordKey, claim, { ifAbsent: true, ttlMs: this.claimMs }))) {
          return { claimed: true, existing: null };
        }
        return { claimed: false, existing: await this.storeCall(() => this.store.get(recordKey)) };
      },
    );
  }

  /**
   * `run` for a route on one checkout session, its record in the session's slot: the session is
   * read in the atomic step that claims the key, one round trip for both, and `session.read`
   * judges it before anything runs or is replayed (404, or 409 for a hold that ended), releasing a
   * refused claim. A missing session writes nothing.
   */
  async runOnSession<T, S>(
    scope: string,
    idempotencyKey: string | undefined,
    body: unknown,
    session: { ref: string; read: RecordRead<S> },
    work: (admitted: S, answering: AnswerBeside<T>) => Promise<StoredAnswer<T>>,
  ): Promise<IdempotentAnswer<T>> {
    if (!hasKeyForm(idempotencyKey)) {
      // An unknown session answers 404 whatever its key.
      await session.read.open(await this.storeCall(() => this.store.get(session.read.key)));
    }
    const recordKey = this.keys.sessionIdempotencyRecord(session.ref, scope, checkedKey(idempotencyKey));
    let admitted: S;
    return this.claimAndRun(
      scope,
      recordKey,
      body,
      (answering) => work(admitted, answering),
      async (claim) => {
        const found = await this.storeCall(() => this.store.claimBeside(recordKey, claim, this.claimMs, session.read.key));
        try {
          admitted = await session.read.open(found.beside);
        } catch (error) {
          if (found.claimed) await this.release(recordKey, claim);
          throw error;
        }
        // Found under a key of an earlier version and moved to its own: claimed beside it next time.
        return found.beside === null ? { claimed: false, existing: null } : found;
      },
    );
  }

  /** Runs `work` under the claim `claimOnce` takes, or answers from the record it found instead. */
  private async claimAndRun<T>(
    scope: string,
    recordKey: string,
    body: unknown,
    work: (answering: AnswerBeside<T>) => Promise<StoredAnswer<T>>,
    claimOnce: (claim: string) => Promise<{ claimed: boolean; existing: string | null }>,
  ): Promise<IdempotentAnswer<T>> {
    const fingerprint = this.fingerprints.of(body);
    const claim = JSON.stringify({ state: 'running', fingerprint, owner: randomUUID() } satisfies IdempotencyRecord);
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
      const { claimed, existing } = await claimOnce(claim);
      if (claimed) return this.execute(recordKey, claim, fingerprint, work);
      if (existing === null) continue;
      if (this.isUnknown(existing, fingerprint)) {
        // Run again to learn the outcome: the work asks the write journal, it never writes twice.
        // Deleting exactly the unknown record first lets one retry at a time through.
        if (await this.storeCall(() => this.store.deleteIfEquals(recordKey, existing))) continue;
        throw inProgress();
      }
      return this.answerFrom<T>(scope, recordKey, existing, fingerprint);
    }
    throw inProgress();
  }

  private isUnknown(text: string, fingerprint: string): boolean {
    const record = parseRecord(text);
    return record?.state === 'unknown' && record.fingerprint === fingerprint;
  }

  private async execute<T>(
    recordKey: string,
    claim: string,
    fingerprint: string,
    work: (answering: AnswerBeside<T>) => Promise<StoredAnswer<T>>,
  ): Promise<IdempotentAnswer<T>> {
    let answer: StoredAnswer<T>;
    let answeredBeside = false;
    const answering: AnswerBeside<T> = {
      // Only over this request's own claim, as keep() writes it.
      steps: (done) =>
        steps.replaceHeld(recordKey, claim, JSON.stringify(this.doneRecord(recordKey, fingerprint, done)), IDEMPOTENCY_RECORD_TTL_MS),
      written: () => {
        answeredBeside = true;
      },
    };
    const renewUntil = Date.now() + this.renewForMs;
    const renewal = setInterval(() => {
      if (Date.now() >= renewUntil) {
        // Stuck past anything a request may legitimately wait for: the claim lapses, and the guest's
        // retry runs and meets the write journal, which never sends a write twice.
        clearInterval(renewal);
        this.logger.warn({ runningMs: this.renewForMs }, 'a request ran longer than any request may; its Idempotency-Key is freed');
        return;
      }
      this.store.extendIfEquals(recordKey, claim, this.claimMs).catch(() => undefined);
    }, this.claimMs / 3);
    renewal.unref();
    try {
      answer = await work(answering);
    } catch (error) {
      clearInterval(renewal);
      if (isOutcomePending(error)) {
        await this.keep(recordKey, claim, { state: 'unknown', fingerprint });
      } else if (isFinalError(error) && !isRefusal(error)) {
        await this.keep(recordKey, claim, { state: 'failed', fingerprint, error: storedError(error) });
      } else {
        // Nothing final was answered, or only a refusal: free the key so the client's retry with it runs again.
        await this.release(recordKey, claim);
      }
      throw error;
    }
    clearInterval(renewal);
    if (!answeredBeside) await this.keep(recordKey, claim, this.doneRecord(recordKey, fingerprint, answer));
    return { ...answer, replayed: false };
  }

  private doneRecord(recordKey: string, fingerprint: string, answer: StoredAnswer<unknown>): IdempotencyRecord {
    return { state: 'done', fingerprint, sealedAnswer: this.answers.seal(JSON.stringify(answer), recordKey) };
  }

  private async release(recordKey: string, claim: string): Promise<void> {
    await this.store.deleteIfEquals(recordKey, claim).catch((cause: unknown) => {
      this.logger.warn({ err: cause }, 'could not release an Idempotency-Key claim; it expires on its own');
    });
  }

  /**
   * The work has run, so its answer goes to the client even when it cannot be stored now: it is
   * kept and written once the store answers (a retry meanwhile meets the write journal). Written
   * only over this request's own claim: once the claim lapsed, a retry owns the key and the
   * journal answers it the same outcome.
   */
  private async keep(recordKey: string, claim: string, record: IdempotencyRecord): Promise<void> {
    await this.outbox.write(recordKey, `idempotency record ${record.state}`, async () => {
      const [ours] = await this.store.batch(steps.replaceHeld(recordKey, claim, JSON.stringify(record), IDEMPOTENCY_RECORD_TTL_MS));
      if (ours !== true)
        // Also when the answer went in the session's step but its reply was lost (AnswerBeside): the record holds it.
        this.logger.warn(
          { state: record.state },
          'an Idempotency-Key no longer held this request’s claim when it ended (the claim lapsed, or its answer was stored already); nothing written',
        );
    });
  }

  private answerFrom<T>(scope: string, recordKey: string, text: string, fingerprint: string): IdempotentAnswer<T> {
    const record = parseRecord(text);
    if (!record) throw new Error('an Idempotency-Key record in the store is not readable');
    if (record.fingerprint !== fingerprint) {
      throw new DomainError(
        'idempotency_conflict',
        'This Idempotency-Key was already used with a different request body; use a new key for a new request.',
      );
    }
    if (record.state === 'running' || record.state === 'unknown') throw inProgress();
    this.metrics.idempotentReplays.inc({ scope: scope.split(':', 1)[0] });
    if (record.state === 'failed') throw replayedError(record.error);
    const answer = 'sealedAnswer' in record ? this.answers.open(record.sealedAnswer, recordKey) : JSON.stringify(record.answer);
    if (answer === null) throw new Error('a stored Idempotency-Key answer does not open with this service’s secret');
    return { ...(JSON.parse(answer) as StoredAnswer<T>), replayed: true };
  }

  /** Without the record there is no protection against a second run: refuse rather than run. */
  private async storeCall<R>(call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } catch (cause) {
      throw DomainError.storeUnavailable(cause);
    }
  }
}

/** The key when it has the form of one; 400 otherwise. */
function checkedKey(idempotencyKey: string | undefined): string {
  if (!hasKeyForm(idempotencyKey)) throw keyRefused(idempotencyKey);
  return idempotencyKey;
}

function hasKeyForm(idempotencyKey: string | undefined): idempotencyKey is string {
  return idempotencyKey !== undefined && IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey);
}

/** A missing key is "required"; a key sent in another form is told the format it broke. */
function keyRefused(idempotencyKey: string | undefined): DomainError {
  if (idempotencyKey === undefined) {
    return DomainError.validation(
      [{ field: 'Idempotency-Key', message: `the Idempotency-Key header is required: ${IDEMPOTENCY_KEY_FORMAT}` }],
      'The Idempotency-Key header is missing.',
    );
  }
  return DomainError.validation(
    [
      {
        field: 'Idempotency-Key',
        message: `the Idempotency-Key header must be ${IDEMPOTENCY_KEY_FORMAT} (the one sent has ${idempotencyKey.length} characters${/^[A-Za-z0-9_-]*$/.test(idempotencyKey) ? '' : ', some of them not allowed'})`,
      },
    ],
    'The Idempotency-Key header is not valid.',
  );
}

function inProgress(): DomainError {
  return new DomainError('idempotency_in_progress', 'An earlier attempt of this request is still being processed; retry shortly.', {
    retryAfterSeconds: 1,
  });
}
