import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { OnProductEvent } from '../common/events/on-product-event';
import type { ProductEvents } from '../common/events/product-events';
import { AtRestCipher, AtRestCiphers } from '../redis/at-rest-cipher';
import { BatchStep, KeyValueStore, RecordRead, steps } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import type { Priority } from '../upstream/outbound-rate-limiter';
import { UnknownFinds } from './unknown-finds';

/**
 * How long a reservation stays known after the platform announced it or a guest found it: longer
 * than bookings are usually made ahead of their payment; past it, its lookup reads at the anonymous share.
 */
const KNOWN_FOR_MS = 180 * 86_400_000;
/** An account that sent no reservation webhook for this long is taken not to send them. */
const ANNOUNCING_FOR_MS = 7 * 86_400_000;
/** How often a replica asks the store whether the account announces its reservations. */
const ANNOUNCING_CHECK_MS = 30_000;
/** The record of a reservation announced by the platform, its guest's email not seen yet. */
const ANNOUNCED = 'announced';
const EMAIL = 'email:';

/** What the service knows of a reservation before it reads it. */
export interface KnownReservation {
  /** The platform announced it (a reservation webhook), or a guest found it. */
  known: boolean;
  /** A keyed digest of its guest's email as last read from the platform. */
  guestEmail?: string;
}

const normalised = (email: string) => email.trim().toLowerCase();

/** The budget shares a session open's reservation read spends, and what it tells when it ends. */
export interface LookupShares {
  find: Priority;
  rest: Priority;
  /** `missed`: the platform has no reservation by that id for that email. The first call counts. */
  ended(missed: boolean): void;
}

/** An unknown id past the replica's allowance: found at the anonymous share, read at checkout once found. */
const ANONYMOUS_FIND = { find: 'anonymous', rest: 'checkout' } as const;

/**
 * Tells a guest from a guess before the platform is read (docs/product-spec.md §7): a reservation
 * the platform announced or a guest found, asked with its guest's email, reads at checkout
 * priority; past a few misses (UnknownFinds), guesses read at the anonymous share. The email is
 * kept only as a keyed digest.
 */
@Injectable()
export class KnownReservations implements OnModuleInit {
  private readonly emails: AtRestCipher;
  private readonly unknownFinds = new UnknownFinds(() => performance.now());
  /** Whether the platform announces this account's reservations (a webhook lately, on any replica). */
  private readonly announcing = { lately: false, checkedAt: Number.NEGATIVE_INFINITY };

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    ciphers: AtRestCiphers,
  ) {
    this.emails = ciphers.for('known-reservation-email');
  }

  /** The record, read inside the lookup's first step. */
  read(reservationId: string): RecordRead<KnownReservation> {
    return {
      key: this.keys.knownReservation(reservationId),
      open: (stored) =>
        Promise.resolve(
          stored === null
            ? { known: false }
            : stored.startsWith(EMAIL)
              ? { known: true, guestEmail: stored.slice(EMAIL.length) }
              : { known: true },
        ),
    };
  }

  /**
   * The shares a lookup reads at (`find`: the read that finds the reservation; `rest`: what is read
   * of it once found), and `ended`, told how the lookup ended. A known reservation asked with its
   * guest's email (or before one was seen): checkout. An unknown id: as UnknownFinds allows. A
   * known one asked with another email: anonymous.
   */
  sharesOf(record: KnownReservation, email: string): LookupShares {
    // An account whose reservations are announced has its guests known: an unknown id is a guess.
    if (!record.known && this.announcesReservations()) return { ...ANONYMOUS_FIND, ended: () => {} };
    if (!record.known) {
      const find = this.unknownFinds.take();
      return find ? { find: 'checkout', rest: 'checkout', ended: (missed) => find.ended(missed) } : { ...ANONYMOUS_FIND, ended: () => {} };
    }
    const sameGuest = record.guestEmail === undefined || record.guestEmail === this.emails.fingerprint(normalised(email));
    return sameGuest ? { find: 'checkout', rest: 'checkout', ended: () => {} } : { find: 'anonymous', rest: 'anonymous', ended: () => {} };
  }

  /**
   * The platform showed the reservation: the step that records its guest's email, none when the
   * record says so already. Written whether the guest asked with that email or not: the guest's
   * own lookups then read at checkout priority, and wrong guesses on the id at the anonymous share.
   */
  seenSteps(reservationId: string, guestEmail: string, record: KnownReservation): BatchStep[] {
    const digest = this.emails.fingerprint(normalised(guestEmail));
    if (record.guestEmail === digest) return [];
    return [steps.write(this.keys.knownReservation(reservationId), `${EMAIL}${digest}`, KNOWN_FOR_MS)];
  }

  /** The same, on its own: after a lookup that met the reservation with another email. */
  async seen(reservationId: string, guestEmail: string, record: KnownReservation): Promise<void> {
    const written = this.seenSteps(reservationId, guestEmail, record);
    if (written.length > 0) await this.store.batch(written);
  }

  /**
   * The platform's reservation webhooks announce a reservation (a record with its guest's email
   * stays as it is), and that the account announces them, to every replica.
   */
  @OnProductEvent('reservation.changed', 'known reservations')
  async onReservationChanged(event: ProductEvents['reservation.changed']): Promise<void> {
    if (!event.type.startsWith('reservation.') || !event.reservationId) return;
    Object.assign(this.announcing, { lately: true, checkedAt: performance.now() });
    await Promise.all([
      this.store.set(this.keys.knownReservation(event.reservationId), ANNOUNCED, { ifAbsent: true, ttlMs: KNOWN_FOR_MS }),
      this.store.set(this.keys.reservationAnnouncements(), '1', { ttlMs: ANNOUNCING_FOR_MS }),
    ]);
  }

  /** Asked of the store at start, then at most every ANNOUNCING_CHECK_MS; never waited for (a store down at start holds nothing up). */
  onModuleInit(): void {
    void this.checkAnnouncing();
  }

  private announcesReservations(): boolean {
    if (performance.now() - this.announcing.checkedAt >= ANNOUNCING_CHECK_MS) void this.checkAnnouncing();
    return this.announcing.lately;
  }

  /** Reads whether the account announces its reservations (another replica may have heard it). */
  async checkAnnouncing(): Promise<void> {
    this.announcing.checkedAt = performance.now();
    // A store that cannot tell leaves the last answer.
    const stored = await this.store.get(this.keys.reservationAnnouncements()).catch(() => undefined);
    if (stored !== undefined) this.announcing.lately = stored !== null;
  }
}
