import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { PlaceBack, RequestLimits } from '../common/abuse/request-limits';
import { Clock } from '../primitives/clock';
import { DomainError } from '../common/errors/domain-error';
import { AppConfig } from '../config/app-config';
import { alreadyPaid, CardsOnFile, ownCardMove } from '../sessions/cards-on-file';
import { AttachProgress } from '../sessions/attach-progress';
import { FoundReservation, GuestyClient } from '../upstream/guesty-client';
import type { PlatformReservation } from '../upstream/platform-results';
import { PaymentProviders } from '../upstream/payment-providers';
import { CheckoutSession, CheckoutSessionView, holdEnded, toView } from '../sessions/checkout-session';
import { SessionState } from '../sessions/session-state';
import { setBounded } from '../primitives/bounded-map';
import type { BatchStep } from '../redis/key-value-store';
import { RedisKeys } from '../redis/redis-keys';
import { KnownReservation, KnownReservations, LookupShares } from './known-reservations';

// One answer for an unknown reservation and a wrong email: a session must not reveal which it was.
const NOT_FOUND = 'No reservation matches this id and email.';
/**
 * A lookup that opened nothing is remembered this long by the replica, so the same guess sent again
 * (from any address) costs no platform read; at most this many are kept.
 */
const MISS_REMEMBERED_MS = 30_000;
const MISSES_REMEMBERED = 10_000;

/** A guess as the replica remembers it: a digest of what was asked, never the email itself. */
function guessOf(reservationId: string, email: string, confirmationCode = ''): string {
  return RedisKeys.digest(`${reservationId}\n${email.trim().toLowerCase()}\n${confirmationCode.trim().toLowerCase()}`);
}

const sameWords = (stated: string | undefined, given: string) => stated?.trim().toLowerCase() === given.trim().toLowerCase();

@Injectable()
export class CheckoutSessionsService {
  /** Lookups that opened nothing (guessOf), until when (MISS_REMEMBERED_MS): an id unknown, or not with that email or code. */
  private readonly misses = new Map<string, number>();

  constructor(
    private readonly guesty: GuestyClient,
    private readonly providers: PaymentProviders,
    private readonly sessions: SessionState,
    private readonly config: ConfigService<AppConfig, true>,
    private readonly clock: Clock,
    private readonly cards: CardsOnFile,
    private readonly limits: RequestLimits,
    private readonly attaches: AttachProgress,
    private readonly known: KnownReservations,
  ) {}

  /**
   * `clientIp`: the read that opens a session comes before the guest has proven more than an id
   * and an email, so each client network may miss only so often, and takes its place among the
   * network's lookups before it is sent. Checkout priority: a reservation known, with its guest's
   * email, or one asked with a `confirmationCode` (docs/product-spec.md §7).
   */
  async create(reservationId: string, email: string, clientIp: string, confirmationCode?: string): Promise<CheckoutSessionView> {
    const { lookup, record } = await this.limits.reservationLookup(clientIp, this.known.read(reservationId));
    const guess = guessOf(reservationId, email, confirmationCode);
    let shares: LookupShares | undefined;
    try {
      // A guess the replica remembers reads nothing: it takes no share, and is no miss of the shares'.
      if (!this.rememberedMiss(guess)) {
        shares = await this.known.sharesOf(reservationId, record, email, confirmationCode !== undefined);
      }
      const matched = shares ? await this.matched(reservationId, email, confirmationCode, record, shares) : null;
      shares?.ended(!matched);
      if (!matched || !shares) {
        if (shares) this.rememberMiss(guess);
        await lookup.missed();
        throw new DomainError('reservation_not_found', NOT_FOUND);
      }
      // The place goes back in the session's own write; an open that ends before it gives it back
      // itself, not waited for: the guest's answer does not depend on it.
      const placeBack = lookup.foundStep(reservationId);
      try {
        return await this.opened(await this.guesty.withMoney(matched.found, shares.rest), matched.seen, placeBack);
      } finally {
        void lookup.found(reservationId);
      }
    } finally {
      // A read that failed, or anything else before the lookup was judged, gives its place back
      // before the answer goes, and counts no miss (both no-ops once judged).
      shares?.ended(false);
      await lookup.cutShort();
    }
  }

  /**
   * The reservation, when it is there for that email (and code): judged before its money is read,
   * so a lookup that opens nothing costs the same whatever it missed on: the reservation read, then
   * its guest's email or a read alike (docs/product-spec.md §7). `seen`: what to record of it.
   */
  private async matched(
    reservationId: string,
    email: string,
    confirmationCode: string | undefined,
    record: KnownReservation,
    shares: LookupShares,
  ): Promise<{ found: FoundReservation; seen: BatchStep[] } | null> {
    const found = await this.guesty.findReservation(reservationId, shares.find);
    shares.answered(found !== null);
    const coded = confirmationCode === undefined || sameWords(found?.reservation.confirmationCode, confirmationCode);
    if (!found || !coded) {
      await this.guesty.guestReadAlike(shares.find);
      return null;
    }
    // The record can say yes, never no: the guest may have changed their email since it was read.
    if (this.known.answersYes(reservationId, record, email)) return { found, seen: [] };
    const guestEmail = (await this.guesty.guestEmailOf(found, shares.find))?.trim().toLowerCase() ?? '';
    if (guestEmail !== '' && guestEmail === email.trim().toLowerCase()) {
      return { found, seen: this.known.seenSteps(reservationId, guestEmail, record) };
    }
    // A reservation with no email the platform shows is recorded so too: no email opens it.
    await this.known.seen(reservationId, guestEmail, record).catch(() => undefined);
    return null;
  }

  /**
   * `seen`: steps of the reservation's slot that record what was read, written with the session's
   * count; `placeBack`: the lookup's place, given back in the same write once counted.
   */
  private async opened(reservation: PlatformReservation, seen: BatchStep[], placeBack: PlaceBack): Promise<CheckoutSessionView> {
    const amount = reservation.money?.balanceDue;
    const currency = reservation.money?.currency;
    if (typeof amount !== 'number' || !currency) {
      throw new DomainError('upstream_error', 'The reservation has no balance to pay in a known currency.');
    }
    // One card per reservation (docs/product-spec.md §6.5): a session on a reservation with ours on file would only be refused later.
    if (amount <= 0) {
      if (await this.cards.onFile(reservation.id)) throw alreadyPaid();
      throw new DomainError('invalid_state', 'This reservation has nothing left to pay.');
    }
    // Looked up before the count, so the session's write can join its step; an unavailable provider
    // (or a failed lookup) is answered after the card on file and the count, which a guest sees first.
    const provider = await this.providers.forListing(reservation.listingId).then(
      (found) => ({ found }),
      (error: unknown) => ({ error }),
    );
    const available = 'found' in provider && provider.found?.status === 'ACTIVE' ? provider.found : null;
    const now = this.clock.now();
    const opened = available
      ? this.sessions.openStep({
          id: this.sessions.newId(),
          reservationId: reservation.id,
          ...(reservation.confirmationCode ? { confirmationCode: reservation.confirmationCode } : {}),
          listingId: reservation.listingId,
          guestId: reservation.guestId,
          paymentProviderId: available.paymentProviderId,
          amount,
          currency,
          createdAt: now,
          expiresAt: now + this.config.get('checkout', { infer: true }).sessionTtlSeconds * 1000,
        })
      : null;
    // The card on file, the session's count and its write in one batch: a reservation with a card
    // spends none of the count, and neither it nor a denied count writes a session.
    const opening = this.limits.sessionOpening(reservation.id);
    const { card, counted, after } = await this.cards.onFileOrCounted(
      reservation.id,
      opening.request,
      [placeBack.step, ...(opened ? [opened.step] : [])],
      seen,
    );
    if (after[0] !== null) placeBack.given();
    if (card) throw alreadyPaid();
    opening.admit(counted);
    if ('error' in provider) throw provider.error;
    if (!opened) {
      throw new DomainError(
        'payment_account_unavailable',
        'Card payments are not available for this property right now; please try again later.',
      );
    }
    return toView(opened.written(after[1]));
  }

  async get(id: string): Promise<CheckoutSessionView> {
    const session = await this.reportedProcessing(await this.sessions.require(id));
    const view = (await this.attachUnderWay(session))
      ? { ...toView(session), status: 'processing' as const, nextAction: undefined }
      : toView(session);
    // A hold that ended shows as such before anyone tries to pay it (docs/product-spec.md §3.1).
    return holdEnded(session, this.clock.now()) && view.booking ? { ...view, booking: { ...view.booking, status: 'expired' } } : view;
  }

  /**
   * A session left `processing` whose attach has settled while the move that tells it was lost with
   * its replica: reported as that move would leave it (its card on file, or not attached), never
   * written by this read; the next press records it (docs/product-spec.md §6.4). A store that
   * cannot tell leaves it.
   */
  private async reportedProcessing(session: CheckoutSession): Promise<CheckoutSession> {
    if (session.status !== 'processing') return session;
    const [underWay, card] = await Promise.all([
      this.attaches.attachUnderWay(session.reservationId),
      this.cards.onFile(session.reservationId).catch(() => undefined),
    ]);
    if (underWay || card === undefined) return session;
    if (card === null) return this.sessions.reported(session, { move: 'notAttached' });
    const attached = ownCardMove(card, session);
    return attached ? this.sessions.reported(session, attached) : session;
  }

  /**
   * An attach the journal holds open on the reservation makes any unpaid session on it read
   * `processing` on every replica, whatever its own record says: never "add a card", nor back to
   * the issuer, for a card that may be on the platform. A store that cannot tell leaves the
   * record's word.
   */
  private async attachUnderWay(session: CheckoutSession): Promise<boolean> {
    if (session.status === 'succeeded' || session.status === 'processing') return false;
    return this.attaches.attachUnderWay(session.reservationId);
  }

  private rememberedMiss(guess: string): boolean {
    const until = this.misses.get(guess);
    if (until === undefined) return false;
    if (until > this.clock.now()) return true;
    this.misses.delete(guess);
    return false;
  }

  private rememberMiss(guess: string): void {
    setBounded(this.misses, guess, this.clock.now() + MISS_REMEMBERED_MS, MISSES_REMEMBERED);
  }
}
