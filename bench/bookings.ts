import { randomUUID } from 'node:crypto';
import { benchKeyPrefix, benchRedisUrl, deleteKeys, serviceEnvironment } from './bench-world';
import { printTable } from './cold-start';
import { ServiceProcess, startSandboxProcess, startServiceProcess } from './processes';
import { versusBare } from './versus-bare';

const PLENTY = { perSecond: 100_000, perMinute: 1_000_000, perHour: 10_000_000 };
const LISTING = 'lst-seaside';
const CARD = {
  card: { number: '4242424242424242', exp_month: '12', exp_year: String(new Date().getUTCFullYear() + 2), cvc: '123' },
  billing_details: { name: 'Bench Guest', address: { line1: '1 Bench Street', city: 'Miami Beach', postal_code: '33139', country: 'US' } },
};

const day = (daysAhead: number) => new Date(Date.now() + daysAhead * 86_400_000).toISOString().slice(0, 10);
const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

async function answer<T>(response: Response, expected: number, step: string): Promise<T> {
  const body = (await response.json()) as T;
  if (response.status !== expected) throw new Error(`bench booking: ${step} answered ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** One complete booking as a site makes it: the month's calendar, a quote, the booking session, the card, then the confirmation. */
async function book(url: string, index: number): Promise<void> {
  // Two nights each, three days apart, past the fixtures' owner blocks and seeded reservations.
  const checkIn = day(40 + 3 * index);
  const checkOut = day(42 + 3 * index);
  await answer(await fetch(`${url}/checkout/listings/${LISTING}/calendar?from=${checkIn}&to=${day(42 + 3 * index + 28)}`), 200, 'calendar');
  const quote = await answer<{ id: string }>(
    await fetch(`${url}/checkout/quotes`, post({ listingId: LISTING, checkIn, checkOut, guestsCount: 2 })),
    201,
    'quote',
  );
  const guest = { firstName: 'Bench', lastName: 'Guest', email: `bench-${randomUUID().slice(0, 8)}@example.com` };
  const session = await answer<{ id: string }>(
    await fetch(`${url}/checkout/sessions`, post({ quoteId: quote.id, guest }, { 'Idempotency-Key': randomUUID() })),
    201,
    'booking session',
  );
  const paid = await answer<{ status: string }>(
    await fetch(`${url}/checkout/sessions/${session.id}/payment-method`, post(CARD, { 'Idempotency-Key': randomUUID() })),
    200,
    'card',
  );
  if (paid.status !== 'succeeded') throw new Error(`bench booking: the card ended ${paid.status}`);
  // The confirm runs after the attach was answered (spaced at the platform): the session shows it when it lands.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const seen = await answer<{ booking?: { status: string } }>(await fetch(`${url}/checkout/sessions/${session.id}`), 200, 'session');
    if (seen.booking?.status === 'confirmed') return;
    if (Date.now() > deadline) throw new Error(`bench booking: not confirmed within 30 s (${seen.booking?.status})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Scenario 7 — booking: Open API calls per complete booking with warm caches (calendar → quote → session → card →
 * confirmed), the instance and the sandbox in their own processes; then the cached calendar read under 50
 * connections beside bare Fastify and bare node:http servers, as in scenario 4.
 */
export async function bookings(options: { bookings: number; seconds: number; rounds: number }): Promise<void> {
  const sandbox = await startSandboxProcess({ latencyMs: 20, rateLimits: PLENTY });
  const redisUrl = benchRedisUrl();
  const prefix = benchKeyPrefix();
  let service: ServiceProcess | undefined;
  try {
    service = await startServiceProcess({
      ...serviceEnvironment(sandbox.urls, redisUrl, prefix),
      NODE_ENV: 'development',
      UPSTREAM_RATE_LIMITS: '100000/s,1000000/m,10000000/h',
      // One client address sends every request here: the per-IP limits are not what this measures.
      CHECKOUT_IP_RATE_LIMIT: '1000000/m',
      BOOKING_HOLDS_PER_IP: '100000/h',
      BOOKING_UNPAID_HOLDS_PER_LISTING: '1000',
      BOOKING_UNPAID_NIGHTS_PER_LISTING: '100000',
      CHECKOUT_IP_READ_LIMIT: '1000000/s',
      CHECKOUT_CARD_ATTEMPTS: '1000/h',
    });
    const url = service.url;
    // Warm: the token minted, the listing's provider and every calendar month the bookings read cached, the code paths compiled.
    await answer(
      await fetch(`${url}/checkout/listings/${LISTING}/calendar?from=${day(40)}&to=${day(42 + 3 * options.bookings + 28)}`),
      200,
      'calendar',
    );
    await book(url, 0);
    const before = await sandbox.openApiCalls();
    const started = performance.now();
    for (let i = 1; i <= options.bookings; i += 1) await book(url, i);
    const perBooking = ((await sandbox.openApiCalls()) - before) / options.bookings;
    const bookingMs = (performance.now() - started) / options.bookings;

    const calendarUrl = `${url}/checkout/listings/${LISTING}/calendar?from=${day(200)}&to=${day(230)}`;
    const hot = await versusBare(calendarUrl, '/checkout/listings/:id/calendar', service.child, options);
    printTable(
      `7. booking: calendar → quote → booking session → card → confirmed (${options.bookings} bookings, warm caches; one instance, sandbox latency 20 ms)`,
      [
        ['Open API calls per complete booking (goal ≤ 6)', perBooking.toFixed(2)],
        ['wall time per booking, confirmation included (ms)', bookingMs.toFixed(0)],
      ],
    );
    printTable(`7. cached calendar, 31 days (${hot.bodyBytes} bytes of JSON), 50 connections`, hot.rows);
  } finally {
    await service?.stop();
    await sandbox.stop();
    await deleteKeys(redisUrl, prefix);
  }
}
