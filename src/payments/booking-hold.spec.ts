import { ReservationStatusRead } from '../upstream/platform-results';
import { holdOnPlatform } from './booking-hold';

const NOW = Date.parse('2026-11-25T12:00:00Z');
/** When the reservation's create said its hold ends (the session's booking keeps it). */
const created = (holdExpiresAt = '2026-11-25T12:30:00Z') => holdExpiresAt;
const read = (fields: { status: ReservationStatusRead; holdEndsAt?: string }) => fields;

describe('holdOnPlatform (a booking hold as the platform shows it)', () => {
  it.each(['reserved', 'confirmed', 'awaiting_payment'] as const)('a %s reservation within its hold still holds', (status) => {
    expect(holdOnPlatform(read({ status }), created(), NOW)).toBe('held');
  });

  it.each<[ReservationStatusRead, string]>([
    ['expired', 'expired'],
    ['canceled', 'canceled'],
    ['declined', 'canceled'],
    ['closed', 'canceled'],
    // The platform's help centre: an inquiry "doesn't affect the calendar"; a hold that ran out may show as one.
    ['inquiry', 'expired'],
  ])('a %s reservation holds nothing (%s)', (status, ended) => {
    expect(holdOnPlatform(read({ status }), created(), NOW)).toBe(ended);
  });

  it('a reserved hold whose end passed ended, whether the read carries the end or only the create did', () => {
    expect(holdOnPlatform(read({ status: 'reserved', holdEndsAt: '2026-11-25T11:59:00Z' }), undefined, NOW)).toBe('expired');
    expect(holdOnPlatform(read({ status: 'reserved' }), created('2026-11-25T11:59:00Z'), NOW)).toBe('expired');
    // The create's answer (kept with the booking) wins over a read's reservedAt + reservedUntil.
    expect(holdOnPlatform(read({ status: 'reserved', holdEndsAt: '2026-11-25T13:00:00Z' }), created('2026-11-25T11:59:00Z'), NOW)).toBe(
      'expired',
    );
    expect(holdOnPlatform(read({ status: 'reserved', holdEndsAt: '2026-11-25T11:59:00Z' }), undefined, NOW)).toBe('expired');
  });
});
