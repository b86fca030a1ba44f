import { Webhook } from 'standardwebhooks';
import { journalWorld, quietLogs, unitModule } from '../../test/utils/unit-kit';
import { DomainError } from '../common/errors/domain-error';
import { ProductEventBus } from '../common/events/product-event-bus';
import { ProductEvents } from '../common/events/product-events';
import { GuestyWebhooksService } from './guesty-webhooks.service';

const SECRET = `whsec_${Buffer.from('a webhook secret of the platform').toString('base64')}`;

beforeAll(quietLogs);

async function setUp() {
  const world = journalWorld();
  const refreshed: string[] = [];
  const heard: ProductEvents['reservation.changed'][] = [];
  const bus: Pick<ProductEventBus, 'publish'> = {
    publish: (name, event) =>
      Promise.resolve(
        void (name === 'payments.changed'
          ? refreshed.push((event as ProductEvents['payments.changed']).reservationId)
          : heard.push(event as ProductEvents['reservation.changed'])),
      ),
  };
  const module = await unitModule(world, [GuestyWebhooksService], [[ProductEventBus, bus]]);
  const webhooks = module.get(GuestyWebhooksService);
  let sent = 0;
  /** A message as the platform signs and sends it, with the `svix-*` headers. */
  const deliver = (payload: unknown, { id = `msg_${(sent += 1)}`, secret = SECRET, at = new Date() } = {}) => {
    const body = JSON.stringify(payload);
    const signature = new Webhook(secret).sign(id, at, body);
    return webhooks.receive(SECRET, Buffer.from(body), {
      'svix-id': id,
      'svix-timestamp': String(Math.floor(at.getTime() / 1000)),
      'svix-signature': signature,
    });
  };
  return { world, webhooks, deliver, refreshed, heard };
}

describe('GuestyWebhooks', () => {
  it.each([
    ['null', null],
    ['an array', [{ event: 'reservation.updated' }]],
    ['a number', 42],
    ['a string', 'reservation.updated'],
  ])('refuses a signed body that is %s with 400 validation_failed, claiming and publishing nothing', async (_shape, payload) => {
    const { deliver, heard, refreshed, world } = await setUp();
    await expect(deliver(payload, { id: 'msg_odd' })).rejects.toMatchObject({ code: 'validation_failed', status: 400 });
    expect([...heard, ...refreshed]).toEqual([]);
    expect(await world.store.get(world.keys.webhookMessage('msg_odd'))).toBeNull();
  });

  it('publishes a reservation event as reservation.changed, with the ids only', async () => {
    const { deliver, heard } = await setUp();
    await expect(
      deliver({ event: 'reservation.updated', reservation: { _id: 'res-7', listingId: 'lst-3', money: { totalPaid: 999 } } }),
    ).resolves.toBe('accepted');
    expect(heard).toEqual([{ type: 'reservation.updated', reservationId: 'res-7', listingId: 'lst-3' }]);
  });

  it.each([
    ['its name in eventType, its id at data.reservationId', { eventType: 'reservation.updated.v2', data: { reservationId: 'res-v2' } }],
    ['its name in event, its id at data.reservation.id', { event: 'reservation.updated.v2', data: { reservation: { id: 'res-v2' } } }],
    [
      'a created one, its id at the top',
      { eventType: 'reservation.created.v2', reservationId: 'res-v2', publishedAt: '2027-01-01T00:00:00Z' },
    ],
  ])('takes a v2 reservation event with %s', async (_shape, payload) => {
    const { deliver, heard } = await setUp();
    await expect(deliver(payload)).resolves.toBe('accepted');
    expect(heard).toEqual([
      expect.objectContaining({ type: expect.stringMatching(/^reservation\.(updated|created)\.v2$/), reservationId: 'res-v2' }),
    ]);
  });

  const ID_PLACES: [string, (id: string) => Record<string, unknown>][] = [
    ['data.reservation.id', (id) => ({ data: { reservation: { id } } })],
    ['data.reservationId', (id) => ({ data: { reservationId: id } })],
    ['reservationId', (id) => ({ reservationId: id })],
    ['reservation._id', (id) => ({ reservation: { _id: id } })],
  ];
  const BOTH_FORMS = ID_PLACES.flatMap(([place, body]) => [['event', place, body] as const, ['eventType', place, body] as const]);

  it.each(BOTH_FORMS)('reads reservation.updated.v2 named at `%s`, its id at %s (docs/upstream.md)', async (field, _place, body) => {
    const { deliver, heard, refreshed } = await setUp();
    await expect(deliver({ [field]: 'reservation.updated.v2', ...body('res-both') })).resolves.toBe('accepted');
    expect(heard).toEqual([{ type: 'reservation.updated.v2', reservationId: 'res-both' }]);
    expect(refreshed).toEqual([]);
  });

  it.each(BOTH_FORMS)('reads a folio or payments event named at `%s`, its id at %s, as money moved', async (field, _place, body) => {
    const { deliver, refreshed, heard } = await setUp();
    for (const event of ['guest-folio.created', 'guest-folio.updated', 'payments.received', 'payments.failed']) {
      await expect(deliver({ [field]: event, ...body(`res-${event.replace('.', '-')}`) })).resolves.toBe('accepted');
    }
    expect(refreshed).toEqual(['res-guest-folio-created', 'res-guest-folio-updated', 'res-payments-received', 'res-payments-failed']);
    expect(heard).toEqual([]);
  });

  it('re-reads the payments and balance of the reservation a folio event names, out of order or coalesced', async () => {
    const { deliver, refreshed } = await setUp();
    await expect(deliver({ event: 'guest-folio.updated', reservationId: 'res-f', hostPayout: 1 })).resolves.toBe('accepted');
    await expect(deliver({ eventType: 'guest-folio.created', data: { reservationId: 'res-g' } })).resolves.toBe('accepted');
    expect(refreshed).toEqual(['res-f', 'res-g']);
  });

  it("re-reads a reservation's payments on a payments event, never trusting its figures", async () => {
    const { deliver, refreshed, heard } = await setUp();
    await expect(deliver({ event: 'payments.updated', payment: { reservationId: 'res-9', status: 'SUCCEEDED' } })).resolves.toBe(
      'accepted',
    );
    expect(refreshed).toEqual(['res-9']);
    expect(heard).toEqual([]);
  });

  it('handles one message id once, however often the platform sends it', async () => {
    const { deliver, heard } = await setUp();
    const message = { event: 'reservation.new', reservation: { _id: 'res-1', listingId: 'lst-1' } };
    await expect(deliver(message, { id: 'msg_same' })).resolves.toBe('accepted');
    await expect(deliver(message, { id: 'msg_same' })).resolves.toBe('duplicate');
    expect(heard).toHaveLength(1);
  });

  it('refuses a bad or stale signature as unauthorized, remembering nothing and telling no one', async () => {
    const { world, deliver, heard, refreshed } = await setUp();
    const wrongSecret = `whsec_${Buffer.from('somebody else').toString('base64')}`;
    for (const attempt of [{ secret: wrongSecret }, { at: new Date(Date.now() - 10 * 60_000) }]) {
      const refused = await deliver(
        { event: 'payments.updated', payment: { reservationId: 'res-2' } },
        { id: 'msg_forged', ...attempt },
      ).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DomainError);
      expect((refused as DomainError).code).toBe('unauthorized');
    }
    expect(await world.store.get(world.keys.webhookMessage('msg_forged'))).toBeNull();
    expect({ heard, refreshed }).toEqual({ heard: [], refreshed: [] });
  });

  it('answers an event it does not act on as ignored, and a payments event without a usable reservation id too', async () => {
    const { deliver, heard, refreshed } = await setUp();
    await expect(deliver({ event: 'guest.created', guest: { _id: 'g-1' } })).resolves.toBe('ignored');
    await expect(deliver({ event: 'payments.updated', payment: { reservationId: '../../etc' } })).resolves.toBe('ignored');
    expect({ heard, refreshed }).toEqual({ heard: [], refreshed: [] });
  });
});
