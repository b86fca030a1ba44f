import { randomUUID } from 'node:crypto';
import request from 'supertest';

const DAY_MS = 24 * 3600 * 1000;

/** A stay `daysAhead` days from today (UTC), `nights` long. */
export function stay(daysAhead: number, nights: number): { checkIn: string; checkOut: string } {
  const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
  return { checkIn: day(daysAhead), checkOut: day(daysAhead + nights) };
}

export function newGuest(overrides: Record<string, unknown> = {}) {
  return { firstName: 'Ada', lastName: 'Guest', email: `ada-${randomUUID().slice(0, 8)}@example.com`, ...overrides };
}

/** The booking website's side of the booking API, against one replica. */
export function bookingClient(url: string) {
  return {
    calendar: (listingId: string, from: string, to: string) =>
      request(url).get(`/checkout/listings/${listingId}/calendar`).query({ from, to }),
    quote: (body: Record<string, unknown>) => request(url).post('/checkout/quotes').send(body),
    book: (body: Record<string, unknown>, key: string = randomUUID()) =>
      request(url).post('/checkout/sessions').set('Idempotency-Key', key).send(body),
    session: (id: string) => request(url).get(`/checkout/sessions/${id}`),
    submit: (id: string, body: unknown, key: string = randomUUID()) =>
      request(url)
        .post(`/checkout/sessions/${id}/payment-method`)
        .set('Idempotency-Key', key)
        .send(body as object),
  };
}
