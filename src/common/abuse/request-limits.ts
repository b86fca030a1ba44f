import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AppConfig, RateLimit } from '../../config/app-config';
import { MetricsService } from '../../metrics/metrics.service';
import {
  BatchStep,
  KeyValueStore,
  RecordRead,
  SlotAnswer,
  SlotRequest,
  blockMembers,
  slotAnswerOf,
  slotStep,
  steps,
} from '../../redis/key-value-store';
import type { RequestLimitName } from '../../redis/redis-keys';
import { MemoryKeyValueStore } from '../../redis/memory-key-value-store';
import { RedisKeys } from '../../redis/redis-keys';
import { DomainError } from '../errors/domain-error';
import { clientNetwork } from '../http/client-ip';
import { AnonymousRecords } from './anonymous-records';
import { LookupsHere } from './lookups-here';
import { BlockTaken, ReadsInHand } from './reads-in-hand';

/**
 * Abuse guards of the checkout's routes, shared by every replica through sliding-window logs in the
 * store (a burst at a window's edge cannot double a limit). Write guards fail closed (503) when the
 * store cannot count. The read guard counts locally meanwhile: those reads work without Redis, and
 * the outbound budget still bounds their cost.
 */
/** Wrong operator keys a network may send before every admin request from it waits (adminKeyFailed). */
export const ADMIN_KEY_FAILURES: RateLimit = { limit: 10, windowMs: 60_000, text: 'wrong operator keys a minute' };

/**
 * The limits whose logs anonymous traffic makes, one per network (or listing and network): made
 * within ANONYMOUS_RECORDS_PER_HOUR (AnonymousRecords). Those of a reservation, or of a listing
 * alone, need a reservation or a listing that exists.
 */
const ANONYMOUS_LIMITS: ReadonlySet<RequestLimitName> = new Set<RequestLimitName>([
  'client-ip',
  'reservation-misses',
  'reservation-places',
  'booking-holds',
  'admin-keys',
]);

/** The one window member every check of a network's reservation misses writes (see reservationLookup). */
const RESERVATION_MISS_CHECK = 'check';
/**
 * The platform waits in a row a session open may hold its place through: the reservation, its
 * guest's email (the single read, then the list), its money, and the listing's payment provider.
 */
const LOOKUP_WAITS = 5;
/** How long a session open waits for a place while its network's lookups are on their way. */
const LOOKUP_WAIT_MS = 10_000;
/** How often a waiting session open asks again while the places are held on other replicas. */
const LOOKUP_RECHECK_MS = 100;

/** A found lookup's place given back as a step of another write: `given` once that step ran. */
export interface PlaceBack {
  step: BatchStep;
  given(): void;
}

/** A session open's place among its network's reservation lookups, taken before the read. */
export interface ReservationLookup {
  /** The reservation was found for that email: the place is given back. The first of the three counts. */
  found(reservationId: string): Promise<void>;
  /**
   * found() as a step of another write (of another slot), sparing its round trip: `given` once the
   * step ran. Until then found(), missed() and cutShort() still settle the place.
   */
  foundStep(reservationId: string): PlaceBack;
  /** No such reservation for that email: the place stays, as the network's miss. */
  missed(): Promise<void>;
  /** The read failed, or the open did after it: the place is given back and nothing counted. */
  cutShort(): Promise<void>;
}

/**
 * A reservation's limit for a caller that takes its slot in a step of its own (one that shares the
 * reservation's hash slot): the slot to take, and `admit` to judge the answer (429 when denied).
 */
export interface Counting {
  request: SlotRequest;
  admit(answer: SlotAnswer): void;
  /** The slot taken in a step of its own, when the caller's step did not take it; 429 when denied. */
  take(): Promise<void>;
  /** The slot given back: what it counted never happened (a store that fails here keeps it counted). */
  giveBack(): Promise<void>;
}

@Injectable()
export class RequestLimits {
  private readonly ipLimit: RateLimit;
  private readonly cardLimit: RateLimit;
  private readonly sessionLimit: RateLimit;
  private readonly missLimit: RateLimit;
  private readonly readLimit: RateLimit;
  private readonly holdLimit: RateLimit;
  private readonly unpaidHoldsPerListing: number;
  private readonly unpaidNightsPerListing: number;
  private readonly maxNights: number;
  private readonly local = new MemoryKeyValueStore();
  private readonly records: AnonymousRecords;
  private readonly readsInHand: ReadsInHand;
  private readonly lookupsHere: LookupsHere;
  /**
   * How long a lookup's place counts unless it ends first: longer than a session open may wait on
   * the platform (LOOKUP_WAITS calls in a row, each within its deadline plus a last attempt), so
   * only a dead replica's frees itself.
   */
  private readonly placeMs: number;

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    @Inject(RedisKeys) private readonly keys: RedisKeys,
    @Inject(ConfigService) config: ConfigService<AppConfig, true>,
    @Inject(MetricsService) private readonly metrics: MetricsService,
  ) {
    const checkout = config.get('checkout', { infer: true });
    this.ipLimit = checkout.ipRateLimit;
    this.cardLimit = checkout.cardAttempts;
    this.sessionLimit = checkout.sessionsPerReservation;
    this.missLimit = checkout.reservationMissesPerIp;
    this.readLimit = config.get('budget', { infer: true }).ipReadLimit;
    const booking = config.get('booking', { infer: true });
    this.holdLimit = booking.holdsPerIp;
    this.unpaidHoldsPerListing = booking.unpaidHoldsPerListing;
    this.unpaidNightsPerListing = booking.unpaidNightsPerListing;
    this.maxNights = booking.maxNights;
    // A block is handed out for at most a second, and a sixteenth of the window: reads stay counted
    // close to when they happened, and unused ones go back soon.
    const heldMs = Math.floor(Math.min(1_000, this.readLimit.windowMs / 16));
    this.lookupsHere = new LookupsHere(() => performance.now(), this.missLimit.windowMs);
    const guesty = config.get('guesty', { infer: true });
    this.placeMs = LOOKUP_WAITS * (guesty.callDeadlineMs + guesty.requestTimeoutMs) + 2_000;
    const ceiling = config.get('budget', { infer: true }).anonymousRecordsPerHour;
    this.records = new AnonymousRecords(store, keys.anonymousRecords(), ceiling, {
      made: (where, count) => metrics.anonymousRecords.inc({ where }, count),
      reached: (endsInMs) => {
        metrics.anonymousRecordsCeilingReached.set(1);
        setTimeout(() => metrics.anonymousRecordsCeilingReached.set(0), endsInMs).unref();
        new Logger('RequestLimits').warn(
          `Anonymous traffic made ANONYMOUS_RECORDS_PER_HOUR (${ceiling}) records in Redis this hour: new client networks are counted in each replica's memory for ${Math.ceil(endsInMs / 1000)} s`,
        );
      },
    });
    this.readsInHand = new ReadsInHand(
      (network, slots, countsFromMs) => this.takeReads(network, slots, countsFromMs),
      () => performance.now(),
      heldMs,
    );
  }

  /**
   * One read of this client that may cost an upstream call (`CHECKOUT_IP_READ_LIMIT`: a listing
   * summary, a payment-status poll); throws 429 `rate_limited` when over.
   */
  perClientIpRead(ip: string): Promise<void> | undefined {
    const network = clientNetwork(ip);
    // Most reads are decided from the network's reads in hand: no promise, no store round trip.
    const inHand = this.readsInHand.spendInHand(network);
    if (inHand) return this.admitRead(inHand);
    return this.readsInHand.spend(network).then((answer) => this.admitRead(answer));
  }

  private admitRead(answer: SlotAnswer): undefined {
    if (!answer.granted) {
      this.refuse('client_ip_read', answer, 'Too many requests from your network. Please wait a moment and try again.');
    }
    return undefined;
  }

  /** A block of a network's reads (ReadsInHand), given back where it was taken: Redis, or this replica while Redis fails. */
  private async takeReads(network: string, slots: number, countsFromMs: number): Promise<BlockTaken> {
    // A subject of its own under the client-ip limit: reads and writes are two allowances.
    const request: SlotRequest = { ...this.slotRequest('client-ip', `read:${network}`, this.readLimit), slots, countsFromMs };
    const counted = await this.countedWhereAble(request);
    return {
      answer: counted.answer,
      giveBack: (from) => counted.by.releaseSlot(request.windowKeys, blockMembers(request.member, from, slots)),
    };
  }

  /** Until when new client networks are counted in this replica's memory (ANONYMOUS_RECORDS_PER_HOUR reached); null while they are not. */
  anonymousRecordsReachedUntil(): string | null {
    const ms = this.records.reachedForMs;
    return ms > 0 ? new Date(Date.now() + ms).toISOString() : null;
  }

  /** One request of this client (`CHECKOUT_IP_RATE_LIMIT`); throws 429 `rate_limited` when over. */
  async perClientIp(ip: string): Promise<void> {
    const answer = await this.take('client-ip', clientNetwork(ip), this.ipLimit);
    if (!answer.granted) this.refuseRequest(answer);
  }

  private refuseRequest(answer: SlotAnswer): never {
    this.refuse('client_ip', answer, 'Too many requests from your network. Please wait a moment and try again.');
  }

  /**
   * One card submission for this reservation that is about to reach the platform, its tokenization
   * or its attach (`CHECKOUT_CARD_ATTEMPTS`, card-testing guard); throws 429 `rate_limited` when
   * over. Call it after the body is validated: invalid bodies never reach the host and do not count.
   */
  async cardAttempt(reservationId: string): Promise<void> {
    await this.counted(this.cardAttempting(reservationId));
  }

  /** cardAttempt for a caller that takes its slot in a step of its own (the one that takes the reservation's lease): see Counting. */
  cardAttempting(reservationId: string): Counting {
    return this.counting('card-attempts', reservationId, this.cardLimit, 'card_attempts', 'Too many card attempts for this booking.');
  }

  /**
   * One checkout session opened on this reservation (`CHECKOUT_SESSIONS_PER_RESERVATION`): sessions
   * are the way to more card attempts, so they are bounded too; throws 429 `rate_limited` when over.
   */
  async sessionOpened(reservationId: string): Promise<void> {
    await this.counted(this.sessionOpening(reservationId));
  }

  /** sessionOpened for a caller that takes its slot in a step of its own (beside the reservation's card on file): see Counting. */
  sessionOpening(reservationId: string): Counting {
    return this.counting('sessions', reservationId, this.sessionLimit, 'sessions', 'Too many checkout attempts for this booking.');
  }

  private async counted(counting: Counting): Promise<void> {
    const [answer] = await this.takeAll([counting.request]);
    counting.admit(answer);
  }

  private counting(
    limit: 'card-attempts' | 'sessions',
    reservationId: string,
    rate: RateLimit,
    refused: 'card_attempts' | 'sessions',
    what: string,
  ): Counting {
    const request = this.slotRequest(limit, reservationId, rate);
    const counting: Counting = {
      request,
      admit: (answer) => {
        if (!answer.granted) this.refuse(refused, answer, `${what} Please wait before trying again, or contact us.`);
      },
      take: () => this.counted(counting),
      giveBack: () => this.store.releaseSlot(request.windowKeys, request.member).catch(() => undefined),
    };
    return counting;
  }

  /**
   * A place among the network's reservation lookups, taken before the read: misses and lookups on
   * their way stay within CHECKOUT_RESERVATION_MISSES_PER_IP plus what the network found lately
   * here. 429 once the misses are spent; while lookups hold the places it waits, then 503. `beside`:
   * a record of the reservation's, read in the same step (what the service knows of it).
   */
  async reservationLookup<T>(ip: string, beside: RecordRead<T>): Promise<{ lookup: ReservationLookup; record: T }> {
    const network = clientNetwork(ip);
    const deadline = performance.now() + LOOKUP_WAIT_MS;
    for (;;) {
      const place = randomUUID();
      const { stored, misses, placed, by } = await this.placeStep(beside.key, network, place);
      if (!misses.granted) this.refuseMisses(misses);
      if (placed.granted) {
        const lookup = this.lookupPlaced(network, place, by);
        try {
          return { lookup, record: await beside.open(stored) };
        } catch (error) {
          await lookup.cutShort();
          throw error;
        }
      }
      // The last place is held by a miss, not by a lookup on its way: refused as the misses are.
      if (placed.retryAfterMs > this.placeMs) this.refuseMisses(placed);
      if (performance.now() >= deadline) {
        this.metrics.requestLimitRefusals.inc({ limit: 'reservation_lookups' });
        throw new DomainError('rate_limited', 'Reservations are being looked up for your network. Please try again in a moment.', {
          status: 503,
          retryAfterSeconds: 1,
        });
      }
      await this.lookupsHere.nextEnd(network, Math.min(placed.retryAfterMs, LOOKUP_RECHECK_MS));
    }
  }

  /** The record beside, the misses check and the place, in one round trip (the record's key sits in another slot). */
  private async placeStep(besideKey: string, network: string, place: string) {
    const read = { ...steps.read(besideKey), otherSlot: true as const };
    const requests = [
      this.slotRequest('reservation-misses', network, this.missWindow(), RESERVATION_MISS_CHECK),
      this.placeRequest(network, place),
    ];
    try {
      // Counted in this replica's memory (past the records' ceiling), the record is still read from the store.
      const { sent, by } = await this.records.take(
        requests,
        async (by, taken) =>
          by === this.store
            ? by.batch([read, ...taken.map((request) => slotStep(request))])
            : [...(await this.store.batch([read])), ...(await by.batch(taken.map((request) => slotStep(request))))],
        ([, ...answers]) => answers.map(slotAnswerOf),
      );
      const [stored, misses, placed] = sent;
      return { stored: typeof stored === 'string' ? stored : null, misses: slotAnswerOf(misses), placed: slotAnswerOf(placed), by };
    } catch (cause) {
      throw DomainError.storeUnavailable(cause);
    }
  }

  /**
   * The network's places: each lookup on its way (counted this.placeMs unless it ends first) and
   * each miss (kept a whole miss window), within the allowance plus what the network found here.
   */
  private placeRequest(network: string, place: string, asMiss = false): SlotRequest {
    const rate = asMiss
      ? { limit: Number.MAX_SAFE_INTEGER, windowMs: this.placeMs }
      : { limit: this.missLimit.limit + this.lookupsHere.credit(network), windowMs: this.placeMs };
    return {
      ...this.slotRequest('reservation-places', network, { ...this.missLimit, ...rate }, place),
      ...(asMiss ? { countsFromMs: Math.max(0, this.missLimit.windowMs - this.placeMs) } : {}),
    };
  }

  /** `by`: the store that counted the place (Redis, or this replica past the records' ceiling), which settles it. */
  private lookupPlaced(network: string, place: string, by: KeyValueStore): ReservationLookup {
    const places = [this.keys.requestLimit('reservation-places', network).window];
    // A store that fails here leaves the place to free itself after placeMs.
    let settled = false;
    const settle = () => !settled && (settled = true);
    const quietly = (work: Promise<unknown>) =>
      work.then(
        () => undefined,
        () => undefined,
      );
    return {
      found: async (reservationId) => {
        if (!settle()) return;
        await quietly(by.releaseSlot(places, place));
        this.lookupsHere.found(network, reservationId);
      },
      foundStep: (reservationId) => ({
        step: steps.slotBack(places[0], place),
        given: () => {
          if (!settle()) return;
          // The step gives back a place of Redis; one counted here is given back here.
          if (by !== this.store) void by.releaseSlot(places, place);
          this.lookupsHere.found(network, reservationId);
        },
      }),
      missed: async () => {
        if (!settle()) return;
        await quietly(
          by.takeEachSlot([this.slotRequest('reservation-misses', network, this.missWindow()), this.placeRequest(network, place, true)]),
        );
        this.lookupsHere.ended(network);
      },
      cutShort: async () => {
        if (!settle()) return;
        await quietly(by.releaseSlot(places, place));
        this.lookupsHere.ended(network);
      },
    };
  }

  /**
   * The window holds the network's misses and one member of the checks, which every check
   * refreshes (the same member, so checks at once share it): full means the misses reached the
   * allowance, and a check takes nothing a lookup needs.
   */
  private missWindow(): RateLimit {
    return { ...this.missLimit, limit: this.missLimit.limit + 1 };
  }

  private refuseMisses(answer: SlotAnswer): never {
    this.refuse(
      'reservation_misses',
      answer,
      'Too many reservations not found from your network. Please check the reservation id and email in your confirmation, wait, and try again, or contact us.',
    );
  }

  /**
   * A reservation about to be held without a card, before anything is sent: counted per network
   * (BOOKING_HOLDS_PER_IP) and on its listing at once, every network's first too, in holds
   * (BOOKING_UNPAID_HOLDS_PER_LISTING) and nights (BOOKING_UNPAID_NIGHTS_PER_LISTING), under `holdId`
   * for `holdMs`, the longest it holds its dates unpaid. 429 `rate_limited` when one is over (none counts it).
   */
  async unpaidHold(ip: string, listingId: string, holdId: string, holdMs: number, nights: number): Promise<void> {
    const network = clientNetwork(ip);
    const perAddress = await this.take('booking-holds', network, this.holdLimit, holdId);
    if (!perAddress.granted) {
      this.refuse(
        'booking_holds',
        perAddress,
        'Too many bookings waiting for payment from your network. Please complete one, or wait before booking again.',
      );
    }
    const holds = this.slotRequest(
      'unpaid-holds',
      listingId,
      { limit: this.unpaidHoldsPerListing, windowMs: holdMs, text: 'unpaid holds at once' },
      holdId,
    );
    // A slot per night; the holds and their nights in one step (one hash tag): replicas never both take the last.
    const held = {
      ...this.slotRequest(
        'unpaid-nights',
        listingId,
        { limit: this.unpaidNightsPerListing, windowMs: holdMs, text: 'unpaid nights at once' },
        holdId,
      ),
      slots: nights,
    };
    const [perListing, perNights] = await this.takeAll([holds, held]).catch(async (error: unknown) => {
      await this.releaseSlot('booking-holds', network, holdId).catch(() => undefined);
      throw error;
    });
    if (perListing.granted && perNights.granted) return;
    // A store that fails here leaves the slots to free themselves once the hold's length passed.
    if (perListing.granted) await this.releaseSlot('unpaid-holds', listingId, holdId).catch(() => undefined);
    await this.releaseSlot('booking-holds', network, holdId).catch(() => undefined);
    this.refuse(
      perListing.granted ? 'unpaid_nights' : 'unpaid_holds',
      perListing.granted ? perNights : perListing,
      'This property has too many bookings waiting for payment right now. Please try again in a few minutes.',
    );
  }

  /** The network a hold is counted under, by digest: what a booking keeps to give its slot back (unpaidHoldEnded). */
  holdNetworkOf(ip: string): string {
    return RedisKeys.digest(clientNetwork(ip));
  }

  /**
   * The hold no longer blocks its listing, nor counts among its network's bookings waiting for
   * payment (`network`, when the booking kept it): its card is on file, or it was never made.
   */
  async unpaidHoldEnded(listingId: string, holdId: string, network?: string): Promise<void> {
    await this.releaseSlot('unpaid-holds', listingId, holdId);
    // Its nights, however many: no hold held more than the longest stay booked online.
    await this.releaseSlot('unpaid-nights', listingId, blockMembers(holdId, 1, this.maxNights));
    if (!network) return;
    await this.releaseWhereCounted([this.keys.requestLimit('booking-holds', network, true).window], holdId);
  }

  /**
   * Before an operator key is compared: a network that sent more than ADMIN_KEY_FAILURES wrong keys
   * waits (429) until its pause ends, right key or not, so a guessing run is slowed to that pace.
   * Counted locally while the store cannot (each replica then holds the allowance).
   */
  async adminKeyAdmitted(ip: string): Promise<void> {
    const { pause } = this.keys.requestLimit('admin-keys', clientNetwork(ip));
    const [shared] = await this.store.batch([steps.expiresIn(pause)]).catch(() => this.local.batch([steps.expiresIn(pause)]));
    // A network counted here past the records' ceiling is paused here.
    const left = Math.max(typeof shared === 'number' ? shared : 0, (await this.records.here.ttlMs(pause)) ?? 0);
    if (left > 0) {
      this.refuse('admin_keys', { granted: false, retryAfterMs: left }, 'Too many wrong operator keys from your network. Please wait.');
    }
  }

  /** A wrong or missing operator key: counted for its network; past the allowance the network is paused (429). */
  async adminKeyFailed(ip: string): Promise<void> {
    const request = this.slotRequest('admin-keys', clientNetwork(ip), ADMIN_KEY_FAILURES);
    // The pause goes where the count was taken.
    const counted = await this.countedWhereAble(request);
    if (counted.answer.granted) return;
    await counted.by.pauseSlots(request.pauseKey, counted.answer.retryAfterMs).catch(() => undefined);
    this.refuse('admin_keys', counted.answer, 'Too many wrong operator keys from your network. Please wait.');
  }

  /**
   * A slot of a network taken in Redis (in this replica's memory past the records' ceiling), or in
   * this replica's own store while Redis fails, and which of them took it.
   */
  private countedWhereAble(request: SlotRequest): Promise<{ answer: SlotAnswer; by: KeyValueStore }> {
    return this.records
      .take(
        [request],
        (by, [taken]) => by.takeSlot(taken),
        (answer) => [answer],
      )
      .then(
        ({ sent, by }) => ({ answer: sent, by }),
        async () => ({ answer: await this.local.takeSlot(request), by: this.local }),
      );
  }

  private async releaseSlot(limit: RequestLimitName, subject: string, member: string | readonly string[]): Promise<void> {
    await this.releaseWhereCounted([this.keys.requestLimit(limit, subject).window], member);
  }

  /** Given back in Redis and in this replica's memory, where the records' ceiling may have counted it. */
  private async releaseWhereCounted(windowKeys: string[], member: string | readonly string[]): Promise<void> {
    await this.records.here.releaseSlot(windowKeys, member);
    await this.store.releaseSlot(windowKeys, member);
  }

  private async take(limit: RequestLimitName, subject: string, rate: RateLimit, member?: string): Promise<SlotAnswer> {
    const request = this.slotRequest(limit, subject, rate, member);
    if (!ANONYMOUS_LIMITS.has(limit)) return (await this.takeAll([request]))[0];
    try {
      const { sent } = await this.records.take(
        [request],
        (by, taken) => by.takeSlots(taken),
        (answers) => answers,
      );
      return sent[0];
    } catch (cause) {
      throw DomainError.storeUnavailable(cause);
    }
  }

  /** Slots of several limits in one slot of the store, in order, in one step, up to the first denied (see takeSlots). */
  private async takeAll(requests: SlotRequest[]): Promise<SlotAnswer[]> {
    try {
      return await this.store.takeSlots(requests);
    } catch (cause) {
      throw DomainError.storeUnavailable(cause);
    }
  }

  private slotRequest(limit: RequestLimitName, subject: string, rate: RateLimit, member: string = randomUUID()): SlotRequest {
    const keys = this.keys.requestLimit(limit, subject);
    return {
      windowKeys: [keys.window],
      pauseKey: keys.pause,
      windows: [{ limit: rate.limit, windowMs: rate.windowMs, reserve: 0 }],
      member,
    };
  }

  private refuse(
    limit:
      | 'client_ip'
      | 'client_ip_read'
      | 'card_attempts'
      | 'sessions'
      | 'reservation_misses'
      | 'reservation_lookups'
      | 'booking_holds'
      | 'unpaid_holds'
      | 'unpaid_nights'
      | 'admin_keys',
    answer: SlotAnswer,
    detail: string,
  ): never {
    this.metrics.requestLimitRefusals.inc({ limit });
    throw new DomainError('rate_limited', detail, { status: 429, retryAfterSeconds: Math.max(1, Math.ceil(answer.retryAfterMs / 1000)) });
  }
}
