import request from 'supertest';
import { startingReadings, type SandboxReadings } from '../../sandbox/types';
import { ADMIN_KEY, adminClient, invoiceItemsAt } from '../invoices/invoice-test-helpers';
import { awaitCharge } from '../utils/charges';
import { CARDS, cardBody, checkoutClient, expectSecondCardRefused, freshReservation } from '../utils/checkout-client';
import { startSandboxedApps, type SandboxedApps } from '../utils/sandboxed-apps';

const SETTLE_DELAY_MS = 300;

/**
 * Where the platform's reference reads two ways (docs/upstream.md, "Guest payment method" and
 * "Reservation money"), the service works under both: payment statuses as written or in lower case,
 * `reuse=false` as a filter or ignored, list items naming the reservation or not, and the current
 * invoice-item endpoint answering the folio or the item alone.
 */
const READINGS: [string, SandboxReadings][] = [
  ['as the sandbox reads the reference by default', startingReadings()],
  [
    'the other way: lower-case statuses, reuse=false lists every method, items that name their reservationId, an added invoice item answered alone',
    {
      ...startingReadings(),
      paymentStatusCase: 'lower',
      listEchoesReservationId: true,
      reuseFalseLists: 'all',
      invoiceItemAnswer: 'item',
      listWrapper: 'results',
      methodListFilter: 'ignored',
      paymentSummary: 'present',
      overviewFields: 'seen',
    },
  ],
];

describe.each(READINGS)('the platform read %s', (_name, readings) => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(2, {
      sandbox: { paymentVisibilityDelayMs: 0, chargeSettleDelayMs: SETTLE_DELAY_MS },
      env: { ADMIN_API_KEY: ADMIN_KEY },
    });
    world.sandbox.control.setReadings(readings);
  });
  afterAll(() => world.close());

  const site = (replica = 0) => checkoutClient(world.apps[replica].url);

  it("tells the guest a failed charge as failed, from the platform's payment statuses", async () => {
    const reservation = freshReservation(world, 300);
    const created = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    await site(0).submit(created.body.id, cardBody(CARDS.processorError)).expect(200);
    await awaitCharge(world, reservation.reservationId, 'FAILED', SETTLE_DELAY_MS);
    const status = await request(world.apps[1].url).get(`/checkout/sessions/${created.body.id}/payment-status`).expect(200);
    expect(status.body).toMatchObject({ state: 'failed', diagnosis: { code: 'processor_error' } });
  });

  it('refuses a second card for a reservation that has one at the platform, attaching nothing', () => expectSecondCardRefused(world));

  it("answers an operator's invoice item with the platform's id for it, whatever the endpoint answered", async () => {
    const reservation = freshReservation(world, 300);
    const item = { normalType: 'CF', title: 'Late checkout', amount: 40 };
    const added = await adminClient(world.apps[0].url).addItem(reservation.reservationId, item).expect(201);
    const stored = invoiceItemsAt(world, reservation.reservationId).filter((entry) => entry.title === 'Late checkout');
    expect(stored).toHaveLength(1);
    expect(added.body).toEqual({ _id: stored[0]._id, ...item });
  });
});
