import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { journalWorld, newSessionOf, quietLogs, unitModule } from '../../test/utils/unit-kit';
import { RedisKeys } from '../redis/redis-keys';
import { RequestLimits } from '../common/abuse/request-limits';
import { ProductEventBus } from '../common/events/product-event-bus';
import { GuestyClient } from '../upstream/guesty-client';
import { AttachPaymentMethodRequest, PaymentMethodOnFile, PlatformPayment } from '../upstream/platform-results';
import { UpstreamError } from '../upstream/upstream-error';
import { CardPaymentsService } from './card-payments.service';
import { CardOnFile } from '../sessions/cards-on-file';
import { CheckoutSession } from '../sessions/checkout-session';
import { SessionState } from '../sessions/session-state';
import { SESSION_PROVIDERS } from '../sessions/sessions.module';
import { PaymentProviders } from '../upstream/payment-providers';
import { ThreeDsStates } from './three-ds-states';
import { onReservation } from '../journal/write-intent';

const RESERVATION = 'res-1';
const GUEST = 'guest-1';
const PROVIDER = 'pp-1';

/** The platform's payment methods, as the fake upstream client keeps them. */
class FakePlatform {
  methods: PaymentMethodOnFile[] = [];
  /** The reservation's money.payments, as its charges left them. */
  payments: PlatformPayment[] = [];
  reservationReads = 0;
  attaches: AttachPaymentMethodRequest[] = [];
  /** What the next attach does after (or instead of) landing. */
  nextAttach: 'answer' | 'lose-answer' | 'refuse' | 'not-sent' | 'time-out' = 'answer';
  listFails = false;
  /** Runs once an attach has landed, before its answer goes back (a fault at that moment). */
  afterLanding?: () => void;
  /** Reads of a reservation's confirmation code (the current attach links the card by it). */
  codeReads = 0;
  /** Reads of the reservation's payment methods (the attach's snapshot and the one-card check). */
  listReads = 0;
  /** Cards tokenized; each answers when the test lets it (`tokenized`), or at once. */
  tokenizations: { answer: (id: string) => void }[] = [];
  holdTokenization = false;

  /** A card another party put on the reservation, as the platform lists it. */
  cardByAnotherParty(id: string): void {
    this.methods.push({ id, guestId: GUEST, reservationId: RESERVATION, paymentProviderId: PROVIDER, last4: '1111' });
  }

  asClient(): GuestyClient {
    const client: Partial<GuestyClient> = {
      getReservation: (reservationId) => {
        this.reservationReads += 1;
        return Promise.resolve({
          id: reservationId,
          guestId: GUEST,
          listingId: 'lst-1',
          money: { currency: 'USD', payments: this.payments },
        });
      },
      confirmationCodeOf: (reservationId) => {
        this.codeReads += 1;
        return Promise.resolve(`GY-${reservationId}`);
      },
      tokenizeCard: () =>
        new Promise((resolve) => {
          const answer = (id: string) => resolve({ kind: 'token', token: { _id: id }, status: 201 });
          this.tokenizations.push({ answer });
          if (!this.holdTokenization) answer(`tok_${this.tokenizations.length}`);
        }),
      listPaymentMethods: (guestId, reservationId) => {
        this.listReads += 1;
        if (this.listFails)
          return Promise.reject(
            new UpstreamError('upstream_unavailable', 'down', { operation: 'listPaymentMethods', maybeSent: true, upstreamStatus: 503 }),
          );
        return Promise.resolve(this.methods.filter((method) => method.guestId === guestId && method.reservationId === reservationId));
      },
      attachPaymentMethod: (request) => {
        this.attaches.push(request);
        const behaviour = this.nextAttach;
        this.nextAttach = 'answer';
        if (behaviour === 'not-sent') {
          // Never left (the write's deadline passed in the queue): a refusal the same intent may be sent again after.
          return Promise.reject(
            new UpstreamError('upstream_unavailable', 'not sent', {
              operation: 'attachPaymentMethod',
              maybeSent: false,
              retryAfterSeconds: 1,
            }),
          );
        }
        if (behaviour === 'time-out') {
          // Sent, no answer, and the platform never acts on it: only the settle horizon proves that.
          return Promise.reject(
            new UpstreamError('upstream_unavailable', 'timed out', { operation: 'attachPaymentMethod', maybeSent: true }),
          );
        }
        if (behaviour === 'refuse') {
          return Promise.reject(
            new UpstreamError('upstream_error', 'refused', { operation: 'attachPaymentMethod', maybeSent: true, upstreamStatus: 400 }),
          );
        }
        const method: PaymentMethodOnFile = {
          id: `pm_${this.attaches.length}`,
          guestId: request.guestId,
          reservationId: request.reservationId,
          paymentProviderId: request.paymentProviderId,
          last4: '4242',
        };
        this.methods.push(method);
        this.afterLanding?.();
        if (behaviour === 'lose-answer')
          return Promise.reject(
            new UpstreamError('upstream_unavailable', 'socket hang up', { operation: 'attachPaymentMethod', maybeSent: true }),
          );
        return Promise.resolve(method);
      },
    };
    return client as GuestyClient;
  }
}

beforeAll(quietLogs);

async function setUp(env: Record<string, string> = {}) {
  const platform = new FakePlatform();
  const attachedHeard: string[] = [];
  const events: Pick<ProductEventBus, 'publish'> = {
    publish: (name, payload) =>
      Promise.resolve(void (name === 'card.attached' && attachedHeard.push((payload as { reservationId: string }).reservationId))),
  };
  const world = journalWorld({ CHECKOUT_CARD_ATTEMPTS: '100/h', ...env }, { guesty: platform.asClient(), events });
  const { clock, store, keys, outbox, journal, kinds, leases } = world;
  const providers = { forListing: () => Promise.resolve({ _id: 'prov', paymentProviderId: PROVIDER, status: 'ACTIVE' }) };
  // No booking room here: CardPayments attaches cards without it.
  const module = await unitModule(
    world,
    [CardPaymentsService, ...SESSION_PROVIDERS, ThreeDsStates, RequestLimits, IdempotencyService],
    [
      [GuestyClient, platform.asClient()],
      [PaymentProviders, providers],
      [ProductEventBus, events],
    ],
  );
  const cards = module.get(CardPaymentsService);
  const sessions = module.get(SessionState);
  const newSession = () =>
    sessions.open(newSessionOf(sessions, clock, { reservationId: RESERVATION, guestId: GUEST, paymentProviderId: PROVIDER }));
  const payWithToken = async (session: CheckoutSession, key: string, token = `tok_${key}`) =>
    cards.submitToken(await sessions.require(session.id), token, key);
  const payWithCard = async (session: CheckoutSession, key: string) =>
    cards.submitCard(
      await sessions.require(session.id),
      {
        card: { number: '4242424242424242', exp_month: '12', exp_year: '2040', cvc: '123' },
        billing_details: { name: 'A Guest', address: { line1: '1 Street', city: 'Town', postal_code: '33139', country: 'US' } },
      },
      key,
    );
  /** What the session shows once payment-status finds the charge failed. */
  const chargeFailed = (session: CheckoutSession) =>
    sessions.move(session.id, { move: 'chargeSeen', charge: { next: 'another_card' }, message: 'declined' });
  const cardOnFile = () => world.cardsOnFile.onFile(RESERVATION);
  const cardOnFileRecord = (card: CardOnFile) => world.cardsOnFile.record(RESERVATION, card);
  return {
    clock,
    store,
    keys,
    outbox,
    platform,
    sessions,
    cards,
    journal,
    kinds,
    leases,
    newSession,
    payWithToken,
    payWithCard,
    chargeFailed,
    cardOnFile,
    cardOnFileRecord,
    attachedHeard,
  };
}

describe('CardPayments (the attach through the write journal)', () => {
  it('attaches once and puts the card on file; a second session on the reservation is refused before anything is sent', async () => {
    const world = await setUp();
    const first = await world.newSession();
    const paid = await world.payWithToken(first, 'key-1');
    expect(paid).toMatchObject({ status: 'succeeded', paymentMethod: { id: 'pm_1' } });
    const second = await world.newSession();
    await expect(world.payWithToken(second, 'key-2')).rejects.toMatchObject({ code: 'already_paid', status: 409 });
    expect(world.platform.attaches).toHaveLength(1);
  });

  it("reads the reservation's code before the intent when the session lacks it, once, and hands it to the attach (the send reads nothing)", async () => {
    const world = await setUp();
    const older = await world.newSession();
    await world.payWithToken(older, 'key-1');
    expect(world.platform.codeReads).toBe(1);
    expect(world.platform.attaches[0]).toMatchObject({ confirmationCode: `GY-${RESERVATION}` });
  });

  it('answers the same key from the journal: never a second attach', async () => {
    const world = await setUp();
    const session = await world.newSession();
    await world.payWithToken(session, 'key-1');
    // The session is succeeded; the retry with the key is answered from the journal's landed intent.
    await expect(world.payWithToken(session, 'key-1')).resolves.toMatchObject({ status: 'succeeded', paymentMethod: { id: 'pm_1' } });
    expect(world.platform.attaches).toHaveLength(1);
  });

  it('finds an attach whose answer was lost on the reservation, and says succeeded', async () => {
    const world = await setUp();
    const session = await world.newSession();
    world.platform.nextAttach = 'lose-answer';
    await expect(world.payWithToken(session, 'key-1')).resolves.toMatchObject({ status: 'succeeded', paymentMethod: { id: 'pm_1' } });
    expect(world.platform.attaches).toHaveLength(1);
  });

  it("keeps an attach it cannot check open: processing, outcome_pending, and the key's retry answers what landed", async () => {
    const world = await setUp();
    const session = await world.newSession();
    world.platform.nextAttach = 'lose-answer';
    // The snapshot read before the attach works; every read after it fails.
    world.platform.afterLanding = () => (world.platform.listFails = true);
    await expect(world.payWithToken(session, 'key-1')).rejects.toMatchObject({ code: 'outcome_pending', status: 503 });
    expect(await world.sessions.require(session.id)).toMatchObject({ status: 'processing' });
    // Another card meanwhile: refused, nothing sent.
    await expect(world.payWithToken(session, 'key-2')).rejects.toMatchObject({ code: 'outcome_pending' });
    expect(world.platform.attaches).toHaveLength(1);
    world.platform.listFails = false;
    await expect(world.payWithToken(session, 'key-1')).resolves.toMatchObject({ status: 'succeeded', paymentMethod: { id: 'pm_1' } });
    expect(world.platform.attaches).toHaveLength(1);
  });

  it('takes the same key again once the sweep settled its attach not landed, though the session never heard (its consumer died)', async () => {
    const world = await setUp();
    const session = await world.newSession();
    world.platform.nextAttach = 'time-out';
    await expect(world.payWithToken(session, 'key-1')).rejects.toMatchObject({ code: 'outcome_pending' });
    expect(await world.sessions.require(session.id)).toMatchObject({ status: 'processing' });
    // Past the horizon the sweep settles it; its attach.settled goes nowhere here, as when the replica dies after the settle.
    world.clock.time += 121_000;
    const open = await world.journal.openIntent(onReservation(RESERVATION), world.kinds['payment-method']);
    expect(open).not.toBeNull();
    await world.leases.withLease(onReservation(RESERVATION), () => world.journal.reconcileDue(onReservation(RESERVATION), open!.id));
    expect(await world.sessions.require(session.id)).toMatchObject({ status: 'processing' });
    await expect(world.payWithToken(session, 'key-1')).resolves.toMatchObject({ status: 'succeeded', paymentMethod: { id: 'pm_2' } });
    expect(world.platform.attaches).toHaveLength(2);
    expect(world.platform.methods).toHaveLength(1);
  });

  it('answers a 3-D Secure return that cannot read its state processing, never failed, and sends nothing', async () => {
    const { store, platform, cards, newSession, sessions } = await setUp();
    const session = await newSession();
    store.down = true;
    await expect(cards.completeThreeDs(session.id, 'success', 'A'.repeat(32))).resolves.toBe('processing');
    store.down = false;
    expect(platform.attaches).toEqual([]);
    expect((await sessions.require(session.id)).status).toBe('requires_payment_method');
  });

  it('refuses when the platform already shows a card on the reservation, even with the journal lost', async () => {
    const world = await setUp();
    world.platform.cardByAnotherParty('pm_before');
    const session = await world.newSession();
    await expect(world.payWithToken(session, 'key-1')).rejects.toMatchObject({ code: 'already_paid' });
    expect(world.platform.attaches).toHaveLength(0);
  });

  it('records an answered refusal as failed; a new card under a new key may follow', async () => {
    const world = await setUp();
    const session = await world.newSession();
    world.platform.nextAttach = 'refuse';
    await expect(world.payWithToken(session, 'key-1')).rejects.toMatchObject({ code: 'card_declined' });
    expect(await world.sessions.require(session.id)).toMatchObject({ status: 'failed', lastError: { code: 'card_declined' } });
    await expect(world.payWithToken(session, 'key-2')).resolves.toMatchObject({ status: 'succeeded' });
    expect(world.platform.attaches).toHaveLength(2);
  });

  it("counts a press that sends its key's attach again after the platform never got it: the card-testing guard has no side door", async () => {
    const world = await setUp({ CHECKOUT_CARD_ATTEMPTS: '1/h' });
    const session = await world.newSession();
    world.platform.nextAttach = 'not-sent';
    await expect(world.payWithToken(session, 'key-1')).rejects.toMatchObject({ code: 'upstream_unavailable' });
    // The same key with another token: a new attach goes out, so it is an attempt of its own, and the only one left is spent.
    await expect(world.payWithToken(session, 'key-1', 'tok_other')).rejects.toMatchObject({ code: 'rate_limited', status: 429 });
    expect(world.platform.attaches).toHaveLength(1);
  });

  it('spends no card attempt on presses told "try again" before the card left (writes held after a store loss)', async () => {
    const world = await setUp({ CHECKOUT_CARD_ATTEMPTS: '1/h' });
    const session = await world.newSession();
    const writesFrom = world.clock.now() + 60_000;
    await world.store.set(world.keys.journal().generation, JSON.stringify({ id: 'after-a-loss', writesFrom, foundAt: world.clock.now() }));
    for (const key of ['key-1', 'key-2', 'key-3'])
      await expect(world.payWithToken(session, key)).rejects.toMatchObject({ code: 'step_in_progress', retryAfterSeconds: 60 });
    expect(world.platform.attaches).toHaveLength(0);
    world.clock.time = writesFrom;
    await expect(world.payWithToken(session, 'key-4')).resolves.toMatchObject({ status: 'succeeded' });
    expect(world.platform.attaches).toHaveLength(1);
  });

  it('tells the guest succeeded for a card that landed while Redis was failing, and records it when Redis answers', async () => {
    const world = await setUp();
    const session = await world.newSession();
    world.platform.afterLanding = () => (world.store.down = true);
    await expect(world.payWithToken(session, 'key-1')).resolves.toMatchObject({ status: 'succeeded' });
    world.store.down = false;
    await expect(world.sessions.require(session.id)).resolves.toMatchObject({ status: 'requires_payment_method' });
    await world.outbox.flush();
    await expect(world.sessions.require(session.id)).resolves.toMatchObject({ status: 'succeeded', paymentMethod: { id: 'pm_1' } });
  });
});

describe('CardPayments: the waits before a card (docs/product-spec.md §3)', () => {
  it("reads the reservation's cards while the card is tokenized, side by side, and attaches with that read: the platform read once", async () => {
    const world = await setUp();
    const session = await world.newSession();
    world.platform.holdTokenization = true;
    const paying = world.payWithCard(session, 'key-1');
    while (world.platform.tokenizations.length === 0) await new Promise((resolve) => setImmediate(resolve));
    // The tokenization has not answered, and the snapshot read is under way beside it.
    for (let turn = 0; turn < 20 && world.platform.listReads === 0; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(world.platform.listReads).toBe(1);
    world.platform.tokenizations[0].answer('tok_held');
    await expect(paying).resolves.toMatchObject({ status: 'succeeded', paymentMethod: { id: 'pm_1' } });
    expect(world.platform.listReads).toBe(1);
    expect(world.platform.attaches.map((attach) => attach.tokenId)).toEqual(['tok_held']);
  });

  it('refuses a card tokenized beside a read that found a card on the reservation: its single-use token is never attached', async () => {
    const world = await setUp();
    world.platform.cardByAnotherParty('pm_before');
    const session = await world.newSession();
    await expect(world.payWithCard(session, 'key-1')).rejects.toMatchObject({ code: 'already_paid', status: 409 });
    expect(world.platform.attaches).toHaveLength(0);
    expect(await world.cardOnFile()).toMatchObject({ paymentMethodId: 'pm_before' });
  });
});

describe('CardPayments: a card on file the session never heard of', () => {
  it("a press finds its session's own card on file (the move that tells it was lost with its replica): records it, sends nothing, answers already_paid", async () => {
    const world = await setUp();
    const session = await world.newSession();
    await world.sessions.move(session.id, { move: 'outcomePending' });
    await world.cardOnFileRecord({ paymentMethodId: 'pm_1', sessionRef: RedisKeys.sessionRef(session.id), last4: '4242', brand: 'visa' });
    await expect(world.payWithCard(session, 'key-2')).rejects.toMatchObject({ code: 'already_paid', status: 409 });
    expect(await world.sessions.require(session.id)).toMatchObject({
      status: 'succeeded',
      paymentMethod: { id: 'pm_1', last4: '4242', brand: 'visa' },
    });
    expect(world.platform.tokenizations).toHaveLength(0);
    expect(world.platform.attaches).toHaveLength(0);
  });

  it("a card the platform shows that the store lacked becomes the session's card: another card is refused beside it", async () => {
    const world = await setUp();
    world.platform.cardByAnotherParty('pm_before');
    const session = await world.newSession();
    await expect(world.payWithCard(session, 'key-1')).rejects.toMatchObject({ code: 'already_paid', status: 409 });
    expect(await world.sessions.require(session.id)).toMatchObject({
      status: 'succeeded',
      paymentMethod: { id: 'pm_before', last4: '1111' },
    });
    expect(await world.cardOnFile()).toMatchObject({
      paymentMethodId: 'pm_before',
      sessionRef: RedisKeys.sessionRef(session.id),
      last4: '1111',
    });
    expect(world.platform.attaches).toHaveLength(0);
  });

  it("the same card found there (its earlier press's record lost) is answered succeeded, nothing sent", async () => {
    const world = await setUp();
    world.platform.methods.push({
      id: 'pm_landed',
      guestId: GUEST,
      reservationId: RESERVATION,
      paymentProviderId: PROVIDER,
      last4: '4242',
    });
    const session = await world.newSession();
    await expect(world.payWithCard(session, 'key-1')).resolves.toMatchObject({
      status: 'succeeded',
      paymentMethod: { id: 'pm_landed', last4: '4242' },
    });
    expect(world.platform.attaches).toHaveLength(0);
    expect(world.attachedHeard).toEqual([RESERVATION]);
  });
});

describe('CardPayments: mending a failed charge (docs/product-spec.md §6.5)', () => {
  /** A session whose card pm_1 is on file and whose charge the platform reported failed. */
  async function failedCharge() {
    const world = await setUp();
    const session = await world.newSession();
    await world.payWithToken(session, 'key-1');
    world.platform.payments.push({ id: 'pay_1', amount: 300, currency: 'USD', status: 'FAILED', methodId: 'pm_1' });
    return { world, session };
  }

  it('refuses another card while the session has not heard of a failed charge, without reading or sending anything', async () => {
    const { world, session } = await failedCharge();
    await expect(world.payWithToken(session, 'key-2')).rejects.toMatchObject({ code: 'invalid_state', status: 409 });
    expect(world.platform.attaches).toHaveLength(1);
    expect(world.platform.reservationReads).toBe(0);
  });

  it('attaches the replacement once (its answer lost), moves the card on file to it, and drops the payment status', async () => {
    const { world, session } = await failedCharge();
    await world.chargeFailed(session);
    // payment-status serves the failed charge until the replacement lands.
    const served = world.keys.paymentStatus(RESERVATION).answer;
    await world.store.set(served, JSON.stringify({ state: 'failed' }), { ttlMs: 10_000 });
    world.platform.nextAttach = 'lose-answer';
    const [listed, read] = [world.platform.listReads, world.platform.reservationReads];
    const mended = await world.payWithToken(session, 'key-2');
    expect(mended).toMatchObject({ status: 'succeeded', paymentMethod: { id: 'pm_2' } });
    // The platform's cards and payments read once for the replacement's check and its snapshot; once more for the lost answer.
    expect([world.platform.listReads - listed, world.platform.reservationReads - read]).toEqual([2, 1]);
    expect(mended.lastError).toBeUndefined();
    expect(mended.charge).toBeUndefined();
    expect(world.platform.attaches).toHaveLength(2);
    expect(await world.cardOnFile()).toMatchObject({ paymentMethodId: 'pm_2', sessionRef: RedisKeys.sessionRef(session.id) });
    expect(await world.store.get(served)).toBeNull();
    expect(world.attachedHeard).toEqual([RESERVATION, RESERVATION]);
    // The key's retry answers what landed; a third card is refused: nothing failed on the replacement.
    await expect(world.payWithToken(session, 'key-2')).resolves.toMatchObject({ status: 'succeeded', paymentMethod: { id: 'pm_2' } });
    await expect(world.payWithToken(session, 'key-3')).rejects.toMatchObject({ code: 'invalid_state' });
    expect(world.platform.attaches).toHaveLength(2);
  });

  it('refuses a replacement when a fresh read shows no failed charge on the card on file', async () => {
    const world = await setUp();
    const session = await world.newSession();
    await world.payWithToken(session, 'key-1');
    world.platform.payments.push({ id: 'pay_1', amount: 300, currency: 'USD', status: 'PENDING', methodId: 'pm_1' });
    await world.chargeFailed(session);
    await expect(world.payWithToken(session, 'key-2')).rejects.toMatchObject({ code: 'already_paid', status: 409 });
    expect(world.platform.attaches).toHaveLength(1);
  });

  it('refuses a replacement when the failed card was already replaced on the platform (the record lost)', async () => {
    const { world, session } = await failedCharge();
    await world.chargeFailed(session);
    world.platform.cardByAnotherParty('pm_elsewhere');
    await expect(world.payWithToken(session, 'key-2')).rejects.toMatchObject({ code: 'already_paid' });
    expect(world.platform.attaches).toHaveLength(1);
    expect(await world.cardOnFile()).toMatchObject({ paymentMethodId: 'pm_elsewhere' });
  });

  it('answers outcome_pending to another replacement while one is open, and never sends it', async () => {
    const { world, session } = await failedCharge();
    await world.chargeFailed(session);
    world.platform.nextAttach = 'lose-answer';
    world.platform.afterLanding = () => (world.platform.listFails = true);
    await expect(world.payWithToken(session, 'key-2')).rejects.toMatchObject({ code: 'outcome_pending', status: 503 });
    await expect(world.payWithToken(session, 'key-3')).rejects.toMatchObject({ code: 'outcome_pending' });
    expect(world.platform.attaches).toHaveLength(2);
    world.platform.listFails = false;
    await expect(world.payWithToken(session, 'key-2')).resolves.toMatchObject({ status: 'succeeded', paymentMethod: { id: 'pm_2' } });
    expect(world.platform.attaches).toHaveLength(2);
  });
});
