import { randomUUID } from 'node:crypto';
import { SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET } from '../src/sandbox/types';
import { percentile, startBenchWorld, timed } from './bench-world';
import { printTable } from './cold-start';

const PLENTY = { perSecond: 100_000, perMinute: 1_000_000, perHour: 10_000_000 };
const CARD = {
  card: { number: '4242424242424242', exp_month: '12', exp_year: String(new Date().getUTCFullYear() + 2), cvc: '123' },
  billing_details: { name: 'Bench Guest', address: { line1: '1 Bench Street', city: 'Miami Beach', postal_code: '33139', country: 'US' } },
};

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/**
 * Scenario 3 — complete checkouts without 3-D Secure: session, card, attach. Budgets are set high
 * here (scenario 2 measures them); this measures the calls per checkout and the latency the
 * service adds over the upstream's own, by replaying the same upstream calls directly.
 */
export async function checkouts(options: { instances: number; concurrency: number }): Promise<void> {
  const world = await startBenchWorld(options.instances, {
    env: { UPSTREAM_RATE_LIMITS: '100000/s,1000000/m,10000000/h', CHECKOUT_IP_RATE_LIMIT: '100000/m', CHECKOUT_CARD_ATTEMPTS: '1000/h' },
    sandbox: { rateLimits: PLENTY },
  });
  try {
    const { control } = world.sandbox;
    const reservation = () => {
      const guestEmail = `bench-${randomUUID().slice(0, 8)}@example.com`;
      return { ...control.createReservation({ listingId: 'lst-seaside', guestEmail, balanceDue: 100, currency: 'USD' }), guestEmail };
    };
    const checkout = async (instanceUrl: string) => {
      const { reservationId, guestEmail } = reservation();
      const started = performance.now();
      const session = await fetch(`${instanceUrl}/checkout/sessions`, json({ reservationId, email: guestEmail }));
      const { id } = (await session.json()) as { id: string };
      const paid = await fetch(`${instanceUrl}/checkout/sessions/${id}/payment-method`, json(CARD, { 'Idempotency-Key': randomUUID() }));
      const { status } = (await paid.json()) as { status: string };
      return { ms: performance.now() - started, ok: status === 'succeeded' };
    };
    // Warm: every instance holds the token and the provider is cached.
    await Promise.all(world.instances.map((instance) => checkout(instance.url)));

    const logBefore = control.requestLog.length;
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: options.concurrency }, (_, i) => checkout(world.instances[i % world.instances.length].url)),
    );
    const wallMs = performance.now() - started;
    const openApiCalls = control.requestLog.slice(logBefore).filter((entry) => entry.route !== 'token' && entry.route !== 'tokenize').length;

    const direct = await directUpstreamCheckouts(world.sandbox.urls, options.concurrency, reservation);
    const service = results.map((result) => result.ms).sort((a, b) => a - b);
    const upstream = direct.sort((a, b) => a - b);
    const rows: [string, string][] = [
      ['concurrent checkouts (instances)', `${options.concurrency} (${options.instances})`],
      ['succeeded', `${results.filter((result) => result.ok).length}`],
      ['Open API calls per checkout', (openApiCalls / options.concurrency).toFixed(2)],
      ['checkouts per second', (options.concurrency / (wallMs / 1000)).toFixed(1)],
      ['service p50 / p99 (ms)', `${percentile(service, 50).toFixed(1)} / ${percentile(service, 99).toFixed(1)}`],
      ['upstream alone p50 / p99 (ms)', `${percentile(upstream, 50).toFixed(1)} / ${percentile(upstream, 99).toFixed(1)}`],
      ['added by the service p50 / p99 (ms)', `${(percentile(service, 50) - percentile(upstream, 50)).toFixed(1)} / ${(percentile(service, 99) - percentile(upstream, 99)).toFixed(1)}`],
    ];
    printTable('3. complete checkouts (no 3-D Secure, sandbox latency 20 ms)', rows);
  } finally {
    await world.close();
  }
}

/** The same upstream calls a checkout makes (reservation, tokenize, attach), straight to the sandbox. */
async function directUpstreamCheckouts(
  urls: { apiUrl: string; payUrl: string },
  count: number,
  reservation: () => { reservationId: string; guestId: string },
): Promise<number[]> {
  const tokenAnswer = await fetch(`${urls.apiUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'open-api', client_id: SANDBOX_CLIENT_ID, client_secret: SANDBOX_CLIENT_SECRET }),
  });
  const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
  const auth = { Authorization: `Bearer ${token}` };
  return Promise.all(
    Array.from({ length: count }, async () => {
      const { reservationId, guestId } = reservation();
      const started = performance.now();
      await timed(`${urls.apiUrl}/v1/reservations/${reservationId}`, { headers: auth });
      const tokenized = await fetch(`${urls.payUrl}/api/tokenize/v2`, json({ ...CARD, paymentProviderId: 'pp-seaside', listingId: 'lst-seaside', threeDS: { amount: 100, currency: 'USD' } }));
      const { _id } = (await tokenized.json()) as { _id: string };
      await timed(`${urls.apiUrl}/v1/guests/${guestId}/payment-methods`, json({ _id, paymentProviderId: 'pp-seaside', reservationId }, auth));
      return performance.now() - started;
    }),
  );
}
