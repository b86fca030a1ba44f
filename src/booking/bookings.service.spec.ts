import { randomUUID } from 'node:crypto';
import { journalWorld, quietLogs, unitModule } from '../../test/utils/unit-kit';
import { RequestLimits } from '../common/abuse/request-limits';
import { ProductEventBus } from '../common/events/product-event-bus';
import { PaymentProviders } from '../upstream/payment-providers';
import { SESSION_PROVIDERS } from '../sessions/sessions.module';
import { GuestyClient } from '../upstream/guesty-client';
import { PaymentProvider } from '../upstream/platform-results';
import { UpstreamError } from '../upstream/upstream-error';
import { BookingsService } from './bookings.service';
import { CalendarService } from './calendar.service';
import { StoredQuote } from './quote';
import { QuotesService } from './quotes.service';
import { RedisKeys } from '../redis/redis-keys';
import { SessionState } from '../sessions/session-state';

beforeAll(quietLogs);

const QUOTE: StoredQuote = {
  upstreamQuoteId: 'q-up-1',
  requestDigest: 'd',
  view: {
    id: 'quote-1',
    listingId: 'lst-1',
    checkIn: '2027-01-10',
    checkOut: '2027-01-13',
    nights: 3,
    guestsCount: 2,
    currency: 'USD',
    expiresAt: '2027-01-01T00:00:00Z',
    ratePlans: [
      { id: 'rp-1', name: 'Standard', total: 600, breakdown: { accommodation: 500, cleaning: 50, fees: 0, taxes: 50, discount: 0 } },
    ],
  },
};

/** The platform's reservations and the writes that reached it, as the fake client keeps them. */
class FakePlatform {
  statuses = new Map<string, string>();
  creates = 0;
  statusWrites: { reservationId: string; status: string }[] = [];
  /** What a reservation made from the quote owes as the platform states it (its folio's total). */
  owes = 600;
  /** Reads of what a new reservation owes that fail before one answers (a slow or failing platform). */
  owedReadsFailing = 0;
  /** Why the next status reads fail (each read takes one), before one answers. */
  statusReadsFailing: UpstreamError[] = [];
  /** A status the reservation takes between the confirmation's status read and its write. */
  endsBeforeTheWrite?: string;

  asClient(): GuestyClient {
    const client: Partial<GuestyClient> = {
      createGuest: () => Promise.resolve({ id: 'guest-1' } as Awaited<ReturnType<GuestyClient['createGuest']>>),
      createReservationFromQuote: () => {
        this.creates += 1;
        const reservationId = `res-${this.creates}`;
        this.statuses.set(reservationId, 'reserved');
        return Promise.resolve({ reservationId, confirmationCode: `C-${this.creates}`, status: 'reserved', guestId: 'guest-1' } as Awaited<
          ReturnType<GuestyClient['createReservationFromQuote']>
        >);
      },
      balanceOfNewReservation: () => {
        if (this.owedReadsFailing > 0) {
          this.owedReadsFailing -= 1;
          return Promise.reject(
            new UpstreamError('upstream_unavailable', 'The booking platform timed out.', {
              operation: 'getFolioOverview',
              maybeSent: true,
            }),
          );
        }
        return Promise.resolve({ amount: this.owes, currency: 'USD' });
      },
      reservationStatusOf: (reservationId) => {
        const failure = this.statusReadsFailing.shift();
        if (failure) return Promise.reject(failure);
        return Promise.resolve(this.statuses.get(reservationId) as Awaited<ReturnType<GuestyClient['reservationStatusOf']>>);
      },
      setReservationStatus: (reservationId, status) => {
        this.statusWrites.push({ reservationId, status });
        const ended = this.endsBeforeTheWrite;
        if (ended) {
          // The property ends it after the status read, before the write arrives: the platform refuses it.
          this.statuses.set(reservationId, ended);
          return Promise.reject(
            new UpstreamError('upstream_error', 'Refused.', { operation: 'setReservationStatus', upstreamStatus: 422, maybeSent: true }),
          );
        }
        this.statuses.set(reservationId, status);
        return Promise.resolve({ reservationId, status } as Awaited<ReturnType<GuestyClient['setReservationStatus']>>);
      },
    };
    return client as GuestyClient;
  }
}

async function setUp(providerStatuses: PaymentProvider['status'][], env: Record<string, string> = {}) {
  const platform = new FakePlatform();
  const world = journalWorld({ BOOKING_HOLDS_PER_IP: '100/h', ...env }, { guesty: platform.asClient() });
  const statuses = [...providerStatuses];
  const providers: Pick<PaymentProviders, 'forListing'> = {
    forListing: () =>
      Promise.resolve({
        _id: 'prov',
        paymentProviderId: 'pp-1',
        status: statuses.length > 1 ? statuses.shift()! : statuses[0],
      } as PaymentProvider),
  };
  const quotes: Pick<QuotesService, 'load' | 'booked'> = { load: () => Promise.resolve(QUOTE), booked: () => Promise.resolve() };
  const calendar: Pick<CalendarService, 'nightsTaken'> = { nightsTaken: () => Promise.resolve() };
  const events: Pick<ProductEventBus, 'publish'> = { publish: () => Promise.resolve() };
  const module = await unitModule(
    world,
    [BookingsService, ...SESSION_PROVIDERS, RequestLimits],
    [
      [PaymentProviders, providers],
      [QuotesService, quotes],
      [CalendarService, calendar],
      [ProductEventBus, events],
      [GuestyClient, platform.asClient()],
    ],
  );
  const bookings = module.get(BookingsService);
  const book = async (key: string) =>
    (
      await bookings.admit({ quoteId: 'quote-1', guest: { firstName: 'Ada', lastName: 'Guest', email: 'ada@example.com' } }, '203.0.113.9')
    ).book(key);
  /** The paid booking's confirmation, as its card's follow-up carries it out: its outcome, and the session after it. */
  const confirm = async (sessionId: string) => {
    const outcome = await world.followUps.run({
      kind: 'confirm-booking',
      reservationId: 'res-1',
      sessionRef: RedisKeys.sessionRef(sessionId),
    });
    return { outcome, session: await module.get(SessionState).load(sessionId) };
  };
  return { platform, book, confirm, metrics: world.metrics };
}

describe('Bookings (a reservation from a quote)', () => {
  it('creates nothing while the listing’s payment account is inactive', async () => {
    const world = await setUp(['INACTIVE']);
    await expect(world.book(randomUUID())).rejects.toMatchObject({ code: 'payment_account_unavailable' });
    expect(world.platform.creates).toBe(0);
  });

  it('refuses a stay longer than the online limit as stay_too_long with the limit, naming no setting, before any write', async () => {
    const world = await setUp(['ACTIVE'], { BOOKING_MAX_NIGHTS: '2' });
    const refused = await world.book(randomUUID()).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'stay_not_allowed', limit: { reason: 'stay_too_long', maxNights: 2 } });
    expect((refused as Error).message).toMatch(/longer than 2 nights/);
    expect((refused as Error).message).not.toMatch(/[A-Z]+_[A-Z_]+/);
    expect(world.platform.creates).toBe(0);
  });

  it.each([700, 540])('shows and authenticates what the reservation owes (%d), not what its quote said (600)', async (owes) => {
    const world = await setUp(['ACTIVE']);
    world.platform.owes = owes;
    await expect(world.book(randomUUID())).resolves.toMatchObject({ amount: owes, currency: 'USD' });
  });

  it('a made reservation whose amount cannot be read yet is outcome_pending; the same key opens its session, one reservation', async () => {
    const world = await setUp(['ACTIVE']);
    world.platform.owedReadsFailing = 1;
    const key = randomUUID();
    const first = await world.book(key).catch((error: unknown) => error);
    expect(first).toMatchObject({ code: 'outcome_pending', retryAfterSeconds: expect.any(Number) });
    await expect(world.book(key)).resolves.toMatchObject({ amount: 600, booking: expect.objectContaining({ reservationId: 'res-1' }) });
    expect(world.platform.creates).toBe(1);
  });

  it('cancels, through the journal, a reservation whose session cannot follow: it never holds the dates for nobody', async () => {
    // The account goes offline between the check before the create and the session after it.
    const world = await setUp(['ACTIVE', 'INACTIVE']);
    const key = randomUUID();
    await expect(world.book(key)).rejects.toMatchObject({ code: 'payment_account_unavailable' });
    expect(world.platform.creates).toBe(1);
    expect(world.platform.statuses.get('res-1')).toBe('canceled');
    // The same key again: the same answer, no second reservation and no second cancel.
    await expect(world.book(key)).rejects.toMatchObject({ code: 'payment_account_unavailable' });
    expect(world.platform.creates).toBe(1);
    expect(world.platform.statusWrites).toEqual([{ reservationId: 'res-1', status: 'canceled' }]);
  });

  it('confirms a paid booking the platform still holds reserved: one status read, one write, the session shows it', async () => {
    const world = await setUp(['ACTIVE']);
    const booked = await world.book(randomUUID());
    const { outcome, session } = await world.confirm(booked.id);
    expect(outcome).toBe('done');
    expect(world.platform.statusWrites).toEqual([{ reservationId: 'res-1', status: 'confirmed' }]);
    expect(session?.booking?.status).toBe('confirmed');
    // Again (the sweep after the request's own try): answered from the journal, nothing sent twice.
    await expect(world.confirm(booked.id)).resolves.toMatchObject({ outcome: 'done' });
    expect(world.platform.statusWrites).toHaveLength(1);
  });

  it('sends nothing for a reservation the platform shows confirmed already, and the session shows it confirmed', async () => {
    const world = await setUp(['ACTIVE']);
    const booked = await world.book(randomUUID());
    world.platform.statuses.set('res-1', 'confirmed');
    const { outcome, session } = await world.confirm(booked.id);
    expect(outcome).toBe('done');
    expect(world.platform.statusWrites).toEqual([]);
    expect(session?.booking?.status).toBe('confirmed');
  });

  it.each([
    ['canceled', 'canceled'],
    ['declined', 'canceled'],
    ['closed', 'canceled'],
    ['expired', 'expired'],
    ['inquiry', 'expired'],
  ])(
    'does not confirm a reservation the platform shows %s: nothing sent, the booking shows %s with what became of the card, counted for the operator',
    async (platformStatus, shown) => {
      const world = await setUp(['ACTIVE']);
      const booked = await world.book(randomUUID());
      world.platform.statuses.set('res-1', platformStatus);
      const { outcome, session } = await world.confirm(booked.id);
      expect(outcome).toBe('done');
      expect(world.platform.statusWrites).toEqual([]);
      expect(session?.booking).toMatchObject({ status: shown, notice: expect.stringContaining('not confirmed') });
      const counted = await world.metrics.confirmationsWithheld.get();
      expect(counted.values).toContainEqual(expect.objectContaining({ labels: { status: platformStatus }, value: 1 }));
    },
  );

  it.each([
    [
      'the platform does not answer',
      new UpstreamError('upstream_unavailable', 'The booking platform timed out.', { operation: 'getReservationsV3', maybeSent: true }),
    ],
    [
      'the read is refused (403)',
      new UpstreamError('upstream_forbidden', 'Refused.', { operation: 'getReservationsV3', upstreamStatus: 403, maybeSent: true }),
    ],
  ])('a status read that fails (%s) sends nothing and leaves the confirmation due, never refused nor canceled', async (_how, failure) => {
    const world = await setUp(['ACTIVE']);
    const booked = await world.book(randomUUID());
    world.platform.statusReadsFailing = [failure];
    const first = await world.confirm(booked.id);
    expect(first.outcome).toBe('retry');
    expect(first.session?.booking?.status).toBe('reserved');
    expect(world.platform.statusWrites).toEqual([]);
    await expect(world.confirm(booked.id)).resolves.toMatchObject({ outcome: 'done', session: { booking: { status: 'confirmed' } } });
    expect(world.platform.statusWrites).toEqual([{ reservationId: 'res-1', status: 'confirmed' }]);
  });

  it('a reservation ended between the status read and the write: the refusal is the operator’s, and the session shows the booking canceled', async () => {
    const world = await setUp(['ACTIVE']);
    const booked = await world.book(randomUUID());
    world.platform.endsBeforeTheWrite = 'canceled';
    const { outcome, session } = await world.confirm(booked.id);
    expect(outcome).toBe('refused');
    expect(session?.booking).toMatchObject({ status: 'canceled', notice: expect.stringContaining('not confirmed') });
  });
});
