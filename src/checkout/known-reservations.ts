import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { OnProductEvent } from '../common/events/on-product-event';
import type { ProductEvents } from '../common/events/product-events';
import { AtRestCipher, AtRestCiphers } from '../redis/at-rest-cipher';
import { BatchStep, KeyValueStore, RecordRead, steps } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { StoreOutbox } from '../redis/store-outbox';
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
  /** The find read answered: `exists`, whether the platform has a reservation by that id. */
  answered(exists: boolean): void;
  /** `missed`: the platform has no reservation by that id for that email. The first call counts. */
  ended(missed: boolean): void;
}

/** For lookups whose end changes nothing here. */
const NOTHING_TOLD = { answered: () => {}, ended: () => {} };

/** An unknown id past the replica's allowance: found, and its guest's email read, at the anonymous share; its money at checkout once the email matched. */
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
  /** Finds of unknown ids asked with a confirmation code: an allowance of their own, which guesses without one never spend. */
  private readonly codedFinds = new UnknownFinds(() => performance.now());
  /** Whether the platform announces this account's reservations (a webhook lately, on any replica). */
  private readonly announcing = { lately: false, checkedAt: Number.NEGATIVE_INFINITY, heardAt: Number.NEGATIVE_INFINITY };
  /** Announced reservations whose guest's email is not seen yet, with a lookup at checkout priority on its way here. */
  private readonly firstReads = new Set<string>();

  constructor(
    @Inject(KeyValueStore) private readonly store: KeyValueStore,
    private readonly keys: RedisKeys,
    ciphers: AtRestCiphers,
    private readonly outbox: StoreOutbox,
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
   * The shares a lookup reads at (`find`: the reservation and its guest's email; `rest`: its money,
   * once matched) and `ended`, told how it ended. Checkout: a known reservation with its guest's
   * email, or the first lookup while none is seen. Anonymous: another email, lookups meanwhile. An
   * unknown id: as the finds' allowance allows (`coded`: asked with a confirmation code).
   */
  async sharesOf(reservationId: string, record: KnownReservation, email: string, coded = false): Promise<LookupShares> {
    if (!record.known) {
      // An account whose reservations are announced has its guests known: an unknown id is a guess,
      // unless it comes with a code, whose finds have an allowance of their own.
      const find = coded ? await this.codedFinds.take() : this.announcesReservations() ? null : await this.unknownFinds.take();
      if (!find) return { ...ANONYMOUS_FIND, ...NOTHING_TOLD };
      // Its place frees as soon as the find answers: a guest's other reads do not hold up the next find.
      return { find: 'checkout', rest: 'checkout', answered: (exists) => find.ended(!exists), ended: (missed) => find.ended(missed) };
    }
    if (record.guestEmail !== undefined) {
      return record.guestEmail === this.digestOf(reservationId, email)
        ? { find: 'checkout', rest: 'checkout', ...NOTHING_TOLD }
        : { find: 'anonymous', rest: 'anonymous', ...NOTHING_TOLD };
    }
    // Only the first lookup learns the guest's email; wrong emails sent meanwhile must not all be read at checkout.
    if (this.firstReads.has(reservationId)) return { find: 'anonymous', rest: 'anonymous', ...NOTHING_TOLD };
    this.firstReads.add(reservationId);
    return { find: 'checkout', rest: 'checkout', answered: () => {}, ended: () => this.firstReads.delete(reservationId) };
  }

  /**
   * The platform showed the reservation: the step that records its guest's email (`''`: it has none
   * the platform shows, so no email matches), none when the record says so already. Written whether
   * the guest asked with that email or not: the guest's own lookups then read at checkout priority,
   * and wrong guesses on the id at the anonymous share.
   */
  seenSteps(reservationId: string, guestEmail: string, record: KnownReservation): BatchStep[] {
    const digest = this.digestOf(reservationId, guestEmail);
    if (record.guestEmail === digest) return [];
    return [steps.write(this.keys.knownReservation(reservationId), `${EMAIL}${digest}`, KNOWN_FOR_MS)];
  }

  /** The same, on its own: after a lookup that met the reservation with another email. */
  async seen(reservationId: string, guestEmail: string, record: KnownReservation): Promise<void> {
    const written = this.seenSteps(reservationId, guestEmail, record);
    if (written.length > 0) await this.store.batch(written);
  }

  /** The record's digest is of this email: the guest's own, as last read (no platform read needed). */
  answersYes(reservationId: string, record: KnownReservation, email: string): boolean {
    return record.guestEmail !== undefined && record.guestEmail === this.digestOf(reservationId, email);
  }

  /** Bound to the reservation: one guest's reservations do not share a value a reader of Redis could link. */
  private digestOf(reservationId: string, email: string): string {
    return this.emails.fingerprint(`${reservationId}\n${normalised(email)}`);
  }

  /**
   * The platform's reservation webhooks announce a reservation (a record with its guest's email
   * stays as it is), and that the account announces them, to every replica. Kept and retried while
   * the store is down: the webhook is handled once, and its retry would be a duplicate.
   */
  @OnProductEvent('reservation.changed', 'known reservations')
  async onReservationChanged(event: ProductEvents['reservation.changed']): Promise<void> {
    if (!event.type.startsWith('reservation.') || !event.reservationId) return;
    Object.assign(this.announcing, { lately: true, heardAt: performance.now() });
    const known = this.keys.knownReservation(event.reservationId);
    const announcements = this.keys.reservationAnnouncements();
    await Promise.all([
      this.outbox.write(known, 'known reservation', () =>
        this.store.set(known, ANNOUNCED, { ifAbsent: true, ttlMs: KNOWN_FOR_MS }).then(() => undefined),
      ),
      this.outbox.write(announcements, 'reservations announced', () =>
        this.store.set(announcements, '1', { ttlMs: ANNOUNCING_FOR_MS }).then(() => undefined),
      ),
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
    const asked = performance.now();
    this.announcing.checkedAt = asked;
    // A store that cannot tell leaves the last answer, and a webhook heard meanwhile outranks it.
    const stored = await this.store.get(this.keys.reservationAnnouncements()).catch(() => undefined);
    if (stored !== undefined && this.announcing.heardAt < asked) this.announcing.lately = stored !== null;
  }
}
