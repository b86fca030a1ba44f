import { createHash } from 'node:crypto';

/**
 * The request limits counted in Redis: per client network (requests, and session opens that found
 * no reservation), card attempts and sessions per reservation, reservations held without a card per
 * client network and per listing, and the nights they hold per listing.
 */
export type RequestLimitName =
  | 'client-ip'
  | 'card-attempts'
  | 'sessions'
  | 'reservation-misses'
  | 'reservation-places'
  | 'booking-holds'
  | 'unpaid-holds'
  | 'unpaid-nights'
  | 'admin-keys';

/** Limits counted in one step with another of the same subject: their keys sit under that one's hash tag. */
const TAGGED_UNDER: Partial<Record<RequestLimitName, RequestLimitName>> = {
  'reservation-misses': 'client-ip',
  'reservation-places': 'client-ip',
  'unpaid-nights': 'unpaid-holds',
};

/**
 * Every Redis key the service uses is built here, under the configured prefix, so that several
 * deployments or test runs can share one Redis and a reader can see the whole key space at once.
 */
function targetWrites(base: string): TargetWrites {
  return {
    lease: `${base}:lease`,
    lastWrite: `${base}:last-write`,
    openIntent: `${base}:open-intent`,
    card: `${base}:card`,
    booking: `${base}:booking`,
    intent: (id) => `${base}:intent:${id}`,
  };
}

/** The keys of one write target (a reservation or a quote), all under its hash tag. */
export interface TargetWrites {
  lease: string;
  lastWrite: string;
  openIntent: string;
  card: string;
  booking: string;
  intent(id: string): string;
}

export class RedisKeys {
  constructor(readonly prefix: string) {}

  /** A short, stable digest: identifies a client id or a body without storing it in clear. */
  static digest(value: string): string {
    return createHash('sha256').update(value).digest('hex').slice(0, 24);
  }

  /**
   * The shared outbound budget of the Open API: one sliding-window log per configured window and
   * the pause set by a 429. The {upstream-budget} hash tag keeps them in one Redis Cluster slot,
   * which the one atomic script over all of them requires.
   */
  upstreamBudget(): { windowKeys(windows: readonly { windowMs: number }[]): string[]; pause: string } {
    const base = `${this.prefix}{upstream-budget}`;
    return {
      windowKeys: (windows) => windows.map((window) => `${base}:w:${window.windowMs}`),
      pause: `${base}:pause`,
    };
  }

  /**
   * The shared access token of one client id, its mint lock, mint ledger and the day's one re-mint
   * for a refusal. Named by a digest of the client id, never the id itself.
   */
  accessToken(clientId: string): { token: string; mintLock: string; mintLedger: string; refusalRemint: string } {
    const base = `${this.prefix}{auth:${RedisKeys.digest(clientId)}}`;
    return {
      token: `${base}:token`,
      mintLock: `${base}:mint-lock`,
      mintLedger: `${base}:mint-ledger`,
      refusalRemint: `${base}:refusal-remint`,
    };
  }

  /**
   * The name a checkout session goes by at rest (its key, and the records that point at it): a
   * digest of its id. The id is the guest's capability and lives in the guest's URLs only
   * (docs/product-spec.md §7), so whoever reads Redis cannot take a session over.
   */
  static sessionRef(id: string): string {
    return RedisKeys.digest(id);
  }

  /**
   * A checkout session, by its ref (`sessionRef`), under a hash tag of its own: the Idempotency-Key
   * records of its routes sit in its Redis Cluster slot (`sessionIdempotencyRecord`), so a claim
   * and the session it needs are read and written in one atomic step.
   */
  checkoutSession(ref: string): string {
    return `${this.prefix}session:{${ref}}`;
  }

  /**
   * Where versions before the hash tag kept a session: its ref without one. Read only to move an
   * open session to its key on first use after a deploy (docs/deploying.md).
   */
  untaggedCheckoutSession(ref: string): string {
    return `${this.prefix}session:${ref}`;
  }

  /**
   * Where versions before the digest kept a session: under its raw id. Read only to move an open
   * session to its ref on first use after a deploy (docs/deploying.md).
   */
  legacyCheckoutSession(id: string): string {
    return `${this.prefix}session:${id}`;
  }

  /**
   * One reservation's writes (docs/product-spec.md §6): the writer's lease, the time since its last write (a key
   * that lives RESERVATION_WRITE_SPACING_MS), the intent whose outcome is still open, the journal's
   * intents and the card this service attached. One hash tag per reservation keeps them in one
   * Redis Cluster slot, so the journal writes an intent and its pointers in one atomic step.
   */
  reservationWrites(reservationId: string): TargetWrites {
    return targetWrites(`${this.prefix}{reservation:${reservationId}}`);
  }

  /**
   * A quote's writes before its reservation exists (the guest and the reservation made from it): the
   * same keys under the quote's own hash tag, and which Idempotency-Key booked it (`booking`).
   */
  quoteWrites(upstreamQuoteId: string): TargetWrites {
    return targetWrites(`${this.prefix}{quote:${upstreamQuoteId}}`);
  }

  /** The journal's index of open intents the sweep looks at, by next check time, and the sweep's lock. */
  journal(): { due: string; sweepLock: string; generation: string } {
    const base = `${this.prefix}journal`;
    return { due: `${base}:due`, sweepLock: `${base}:sweep-lock`, generation: `${base}:generation` };
  }

  /** The writes that must follow a landed one (a booking's confirmation after its card), by when they are due. */
  followUps(): { due: string } {
    return { due: `${this.prefix}follow-ups:due` };
  }

  /**
   * Quotes (docs/product-spec.md §3.1): the service's own quote by its id (≥128 random bits, used as
   * it is), and the quote an identical request may reuse, by a digest of the request.
   */
  quotes(): { quote(id: string): string; byRequest(digest: string): string } {
    return { quote: (id) => `${this.prefix}quote:${id}`, byRequest: (digest) => `${this.prefix}quote-request:${digest}` };
  }

  /**
   * A 3-D Secure return state, by a digest of its value: the state until it is used, then its record
   * kept a while under `used` so a duplicate return is recognised (names unchanged since the first
   * deploy, so states in flight across a deploy are still found).
   */
  threeDsState(digest: string): { state: string; used: string } {
    const state = `${this.prefix}3ds-state:${digest}`;
    return { state, used: `${state}:used` };
  }

  /**
   * The Idempotency-Key record of one scope (e.g. `payment-method:<sessionId>`). Named by digests:
   * the raw key is the caller's and stays out of Redis.
   */
  idempotencyRecord(scope: string, idempotencyKey: string): string {
    return `${this.prefix}idempotency:${RedisKeys.digest(scope)}:${RedisKeys.digest(idempotencyKey)}`;
  }

  /** The Idempotency-Key record of a scope on one checkout session, in that session's slot (see checkoutSession). */
  sessionIdempotencyRecord(sessionRef: string, scope: string, idempotencyKey: string): string {
    return `${this.checkoutSession(sessionRef)}:idempotency:${RedisKeys.digest(scope)}:${RedisKeys.digest(idempotencyKey)}`;
  }

  /**
   * A request limit's sliding-window log and pause key, named by a digest of the subject under one
   * hash tag. Limits checked together share a slot (TAGGED_UNDER): a network's reservation misses
   * and lookup places sit under its `client-ip` tag, a listing's unpaid nights under `unpaid-holds`;
   * sessions and card attempts under the reservation's (with its card on file and its lease).
   */
  requestLimit(limit: RequestLimitName, subject: string, digested = false): { window: string; pause: string } {
    if (limit === 'sessions' || limit === 'card-attempts') {
      const base = `${this.prefix}{reservation:${subject}}:limit:${limit}`;
      return { window: `${base}:w`, pause: `${base}:pause` };
    }
    // `digested`: the subject is RedisKeys.digest of one already (a network kept by digest, never in the clear).
    const under = TAGGED_UNDER[limit];
    const tagged = `${this.prefix}{limit:${under ?? limit}:${digested ? subject : RedisKeys.digest(subject)}}`;
    const base = under ? `${tagged}:${limit}` : tagged;
    return { window: `${base}:w`, pause: `${base}:pause` };
  }

  /** The records anonymous traffic made in Redis this hour, every replica together (common/abuse/anonymous-records.ts). */
  anonymousRecords(): string {
    return `${this.prefix}anonymous-records`;
  }

  /** A shared read cache entry (provider by listing, listing summary). */
  cache(name: string, id: string): string {
    return `${this.prefix}cache:${name}:${id}`;
  }

  /** The lock of the one replica fetching a shared read (or an identical quote) for every replica. */
  fetchLock(name: string, id: string): string {
    return `${this.prefix}fetch-lock:${name}:${id}`;
  }

  /**
   * The sliding-window logs of one share of the outbound budget (anonymous reads): taken in the same
   * atomic step as the budget's own windows, so they share its {upstream-budget} hash tag.
   */
  upstreamShare(share: string, windows: readonly { windowMs: number }[]): string[] {
    return windows.map((window) => `${this.prefix}{upstream-budget}:share:${share}:w:${window.windowMs}`);
  }

  /**
   * What the service knows of a reservation before reading it (checkout/known-reservations.ts):
   * that the platform announced it, and a keyed digest of its guest's email. Under the
   * reservation's tag, so a session's open writes it in the step that counts the session.
   */
  knownReservation(reservationId: string): string {
    return `${this.prefix}{reservation:${reservationId}}:known`;
  }

  /** Present while the platform announces its reservations to this service (a reservation webhook lately). */
  reservationAnnouncements(): string {
    return `${this.prefix}reservation-announcements`;
  }

  /** A webhook message id already handled (24 h, every replica), by a digest of the id. */
  webhookMessage(messageId: string): string {
    return `${this.prefix}webhook:${RedisKeys.digest(messageId)}`;
  }

  /**
   * A reservation's last payment-status answer, shared by replicas, and the lock of the one replica
   * refreshing it. Under the reservation's own tag (`reservationWrites`): a card attach that lands
   * drops the answer in the journal's step that records it.
   */
  paymentStatus(reservationId: string): { answer: string; lock: string } {
    const base = `${this.prefix}{reservation:${reservationId}}:payment-status`;
    return { answer: `${base}:answer`, lock: `${base}:lock` };
  }
}
