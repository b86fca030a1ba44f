import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SandboxClient } from '../sandbox/sandbox-helpers';
import { SandboxedApps } from './sandboxed-apps';

export const CARDS = {
  noThreeDs: '4242424242424242',
  threeDs: '4000000000003220',
  declined: '4000000000000002',
  accountFaulty: '4000000000000119',
  processorError: '4000000000000341',
  chargeAuthentication: '4000002760003184',
} as const;

export const CVC = '737';

export function cardBody(
  number: string = CARDS.noThreeDs,
  overrides: { card?: Record<string, unknown>; billing?: Record<string, unknown>; address?: Record<string, unknown> } = {},
) {
  return {
    card: { number, exp_month: '12', exp_year: String(new Date().getUTCFullYear() + 3), cvc: CVC, ...overrides.card },
    billing_details: {
      name: 'Olivia Guest',
      address: { line1: '1 Ocean Drive', city: 'Miami Beach', postal_code: '33139', country: 'US', ...overrides.address },
      ...overrides.billing,
    },
  };
}

/** The website's side of the checkout, against one replica. */
/**
 * Writes at the smallest scale the timing rules allow: a 1 s timeout and lease, a 6 s settle
 * horizon, no spacing, limits no test meets.
 */
export const SCALED_DOWN_WRITES = {
  UPSTREAM_TIMEOUT_MS: '1000',
  UPSTREAM_DEADLINE_MS: '1000',
  RESERVATION_LEASE_MS: '1000',
  WRITE_SETTLE_SECONDS: '6',
  RESERVATION_WRITE_SPACING_MS: '0',
  CHECKOUT_CARD_ATTEMPTS: '100/h',
  CHECKOUT_IP_RATE_LIMIT: '1000/m',
};

export function checkoutClient(url: string) {
  return {
    createSession: (reservationId: string, email: string) => request(url).post('/checkout/sessions').send({ reservationId, email }),
    getSession: (id: string) => request(url).get(`/checkout/sessions/${id}`),
    submit: (id: string, body: unknown, key: string = randomUUID()) =>
      request(url)
        .post(`/checkout/sessions/${id}/payment-method`)
        .set('Idempotency-Key', key)
        .send(body as object),
  };
}

/** A fresh reservation at the sandbox, so a test's payments never meet another test's. */
export function freshReservation(world: SandboxedApps, balanceDue = 500, listingId = 'lst-seaside', currency = 'USD') {
  const guestEmail = `guest-${randomUUID().slice(0, 8)}@example.com`;
  const created = world.sandbox.control.createReservation({ listingId, guestEmail, balanceDue, currency });
  return { ...created, guestEmail };
}

/**
 * A reservation made on the platform, once the service has heard of it: the sandbox's
 * `reservation.created.v2` webhook answered (a world started with `webhooks: true`).
 */
export async function announcedReservation(world: SandboxedApps, balanceDue = 500, listingId = 'lst-seaside', currency = 'USD') {
  const created = freshReservation(world, balanceDue, listingId, currency);
  await world.sandbox.control.webhooksSettled();
  return created;
}

/** Every request the sandbox has seen, for "nothing was sent upstream" checks. */
export function upstreamRequests(world: SandboxedApps): number {
  return world.sandbox.control.requestLog.length;
}

/** How many sessions on this reservation Redis holds (a session's record names its reservation). */
export async function sessionsStoredFor(world: SandboxedApps, reservationId: string): Promise<number> {
  const contents = await world.apps[0].redisContents();
  return [...contents].filter(([key, value]) => /session:\{[^}]+\}$/.test(key) && value.includes(`"reservationId":"${reservationId}"`))
    .length;
}

/**
 * Another channel put a card on a fresh reservation at the platform, unseen by this service. A
 * second card is refused (409 already_paid, on opening or on the card) before anything is attached,
 * whichever replicas take it. The other card's charge is held meanwhile, or a paid reservation
 * would be refused for having nothing left to pay instead.
 */
export async function expectSecondCardRefused(world: SandboxedApps): Promise<void> {
  const reservation = freshReservation(world, 300);
  world.sandbox.control.holdCharges(true);
  try {
    await new SandboxClient(world.sandbox).payWithCard(reservation.reservationId, CARDS.noThreeDs);
    const methods = () => world.sandbox.control.getPaymentMethods(reservation.guestId).length;
    expect(methods()).toBe(1);
    const created = await checkoutClient(world.apps[0].url).createSession(reservation.reservationId, reservation.guestEmail);
    const refused =
      created.status === 201 ? await checkoutClient(world.apps[1].url).submit(created.body.id, cardBody('5555555555554444')) : created;
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('already_paid');
    expect(methods()).toBe(1);
  } finally {
    world.sandbox.control.holdCharges(false);
  }
}
