import { CheckoutSession } from '../sessions/checkout-session';
import { UpstreamReservation } from '../upstream/guesty.types';
import { holdOnPlatform, methodsCharging } from './booking-hold';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const session = (holdExpiresAt = '2026-11-25T12:30:00Z') =>
  ({
    booking: {
      reservationId: 'r',
      confirmationCode: 'C',
      status: 'reserved',
      checkIn: '2026-12-01',
      checkOut: '2026-12-03',
      holdExpiresAt,
    },
  }) as CheckoutSession;
const read = (fields: Partial<UpstreamReservation>): UpstreamReservation => ({ _id: 'r', listingId: 'l', guestId: 'g', ...fields });

describe('holdOnPlatform (a booking hold as the platform shows it)', () => {
  it.each(['reserved', 'inquiry', 'confirmed', 'awaiting_payment'])('a %s reservation within its hold still holds', (status) => {
    expect(holdOnPlatform(read({ status }), session(), NOW)).toBe('held');
  });

  it.each([
    ['expired', 'expired'],
    ['canceled', 'canceled'],
    ['declined', 'canceled'],
    ['closed', 'canceled'],
  ])('a %s reservation holds nothing (%s)', (status, ended) => {
    expect(holdOnPlatform(read({ status }), session(), NOW)).toBe(ended);
  });

  it('a reservation the platform no longer has holds nothing', () => {
    expect(holdOnPlatform(null, session(), NOW)).toBe('canceled');
  });

  it('a reserved hold whose end passed ended, whether the read carries the end or only the create did', () => {
    expect(holdOnPlatform(read({ status: 'reserved', reservedExpiresAt: '2026-11-25T11:59:00Z' }), session(), NOW)).toBe('expired');
    expect(holdOnPlatform(read({ status: 'reserved' }), session('2026-11-25T11:59:00Z'), NOW)).toBe('expired');
    // The platform's own end wins over the create's.
    expect(
      holdOnPlatform(read({ status: 'reserved', reservedExpiresAt: '2026-11-25T13:00:00Z' }), session('2026-11-25T11:59:00Z'), NOW),
    ).toBe('held');
  });

  it('reads the methods charging the reservation from its payments, once each', () => {
    const payments = [
      { _id: 'p1', amount: 1, currency: 'USD', status: 'PENDING', paymentMethodId: 'pm_1' },
      { _id: 'p2', amount: 1, currency: 'USD', status: 'PENDING', paymentMethodId: 'pm_1' },
      { _id: 'p3', amount: 1, currency: 'USD', status: 'PENDING' },
    ];
    expect(methodsCharging(read({ money: { payments } }))).toEqual(['pm_1']);
    expect(methodsCharging(read({}))).toEqual([]);
  });
});
