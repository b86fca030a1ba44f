import { Inject, Injectable } from '@nestjs/common';
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
export class KnownReservations {
  private readonly emails: AtRestCipher;
  private readonly unknownFinds = new UnknownFinds(() => performance.now());

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

  /** The platform's reservation webhooks announce a reservation; a record with its guest's email stays as it is. */
  @OnProductEvent('reservation.changed', 'known reservations')
  async onReservationChanged(event: ProductEvents['reservation.changed']): Promise<void> {
    if (!event.type.startsWith('reservation.') || !event.reservationId) return;
    await this.store.set(this.keys.knownReservation(event.reservationId), ANNOUNCED, { ifAbsent: true, ttlMs: KNOWN_FOR_MS });
  }
}
