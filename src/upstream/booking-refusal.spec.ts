import { bookingRefusal } from './guesty-client';

const answer = (status: number, data: unknown) => ({ status, data, headers: {} }) as unknown as Parameters<typeof bookingRefusal>[0];

describe('a 4xx on a quote or a reservation create', () => {
  it('is the dates’ or the terms’ when the platform’s words say so, proven token or not', () => {
    expect(bookingRefusal(answer(401, { message: 'The listing is not available for the requested dates' }), false)).toBe(
      'dates_unavailable',
    );
    expect(bookingRefusal(answer(422, { error: { message: 'Reservation terms violated: the minimum stay is 2 nights' } }), false)).toBe(
      'stay_not_allowed',
    );
  });

  it('is the booking refused when it names nothing and the token was proven within the last minute', () => {
    expect(bookingRefusal(answer(401, { error: { code: 'UNAUTHORIZED', message: 'Unauthorized' } }), true)).toBe('booking_refused');
    expect(bookingRefusal(answer(400, { message: 'Request failed' }), true)).toBe('booking_refused');
  });

  it('is the token’s when it names nothing and the token was not proven, or when it names the token', () => {
    expect(bookingRefusal(answer(401, { error: { code: 'UNAUTHORIZED', message: 'Unauthorized' } }), false)).toBeNull();
    expect(bookingRefusal(answer(401, { message: 'Access Token is expired' }), true)).toBeNull();
    expect(bookingRefusal(answer(403, { message: 'account is inactive or you do not have permission' }), true)).toBeNull();
  });

  it('is never a refusal for not found, gone, too many requests or a platform fault', () => {
    for (const status of [404, 410, 429, 500, 503]) expect(bookingRefusal(answer(status, { message: 'Unauthorized' }), true)).toBeNull();
  });
});
