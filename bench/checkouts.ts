import { randomUUID } from 'node:crypto';
import { webhookSubscription } from '../sandbox/runtime/webhooks';
import { SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET } from '../sandbox/types';
import { benchKeyPrefix, benchRedisUrl, deleteKeys, percentile, redisRoundTrips, serviceEnvironment, timed } from './bench-world';
import { printTable } from './cold-start';
import { cpuMs, SandboxProcess, ServiceProcess, startSandboxProcess, startServiceProcess } from './processes';

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

type Reservation = { reservationId: string; guestId: string; guestEmail: string };
type Checkout = (reservation: Reservation, index: number) => Promise<number>;

/**
 * Scenario 3, complete checkouts without 3-D Secure, with sandbox and instances in processes of
 * their own as in production. Budgets are set high (scenario 2 measures them). Each round sends
 * `concurrency` checkouts through the service, then the same upstream calls straight to the sandbox
 * on the same machine: their percentiles' difference is the latency the service adds.
 */
export async function checkouts(options: { instances: number; concurrency: number; rounds: number }): Promise<void> {
  // The account announces its reservations (spec §7), as the integration guide asks: while the
  // bench makes them, webhooks go to the first instance, and are answered before the checkouts; the
  // payments webhooks that follow a card are not sent, so the figures stay those of session + card.
  const { subscription, sandbox, redisUrl, prefix, env } = await checkoutWorld(20);
  const instances: ServiceProcess[] = [];
  try {
    for (let i = 0; i < options.instances; i += 1) instances.push(await startServiceProcess(env));
    const announced = async (size: number) => {
      await sandbox.setWebhookTarget(subscription.target(instances[0].url));
      const made = await Promise.all(Array.from({ length: size }, () => reservation(sandbox)));
      await sandbox.webhooksSettled();
      await sandbox.setWebhookTarget(undefined);
      return made;
    };
    const throughService: Checkout = async ({ reservationId, guestEmail }, index) => {
      const url = instances[index % instances.length].url;
      const started = performance.now();
      const session = await fetch(`${url}/checkout/sessions`, json({ reservationId, email: guestEmail }));
      const { id } = (await session.json()) as { id: string };
      const paid = await fetch(`${url}/checkout/sessions/${id}/payment-method`, json(CARD, { 'Idempotency-Key': randomUUID() }));
      const { status } = (await paid.json()) as { status: string };
      if (status !== 'succeeded') throw new Error(`a bench checkout ended ${status}`);
      return performance.now() - started;
    };
    const straight = await straightToUpstream(sandbox);
    const burst = async (checkout: Checkout, size: number) => {
      const reservations = await announced(size);
      return Promise.all(reservations.map((one, index) => checkout(one, index)));
    };

    // Warm: every instance holds the token, the provider is cached, the code paths are compiled.
    for (let i = 0; i < 3; i += 1) await burst(throughService, instances.length * 4);
    await burst(straight, 10);

    const service: number[] = [];
    const upstream: number[] = [];
    const callsBefore = await sandbox.openApiCalls();
    let serviceWallMs = 0;
    let redisCalls = 0;
    let serviceCpuMs = 0;
    const roundTrips = async () =>
      (await Promise.all(instances.map((instance) => redisRoundTrips(instance.url)))).reduce((a, b) => a + b, 0);
    const instancesCpuMs = () => instances.reduce((sum, instance) => sum + cpuMs(instance.child), 0);
    for (let round = 0; round < options.rounds; round += 1) {
      const started = performance.now();
      const cpuBefore = instancesCpuMs();
      const reservations = await announced(options.concurrency);
      const roundTripsBefore = await roundTrips();
      service.push(...(await Promise.all(reservations.map((one, index) => throughService(one, index)))));
      redisCalls += (await roundTrips()) - roundTripsBefore;
      serviceCpuMs += instancesCpuMs() - cpuBefore;
      serviceWallMs += performance.now() - started;
      upstream.push(...(await burst(straight, options.concurrency)));
    }
    // The straight calls count too: five Open API calls each (reservation, email, overview, payments, attach).
    const serviceCalls = (await sandbox.openApiCalls()) - callsBefore - 5 * upstream.length;

    // One at a time, nothing is asked while another take is on its way: no counts go out together.
    // The instances' own commands (token write-back checks, the sweep) are measured idle and taken off.
    const idleBefore = await roundTrips();
    const idleStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const backgroundPerMs = ((await roundTrips()) - idleBefore) / (performance.now() - idleStarted);
    const alone = { service: [] as number[], upstream: [] as number[], roundTrips: 0 };
    for (let i = 0; i < options.concurrency; i += 1) {
      const [one] = await announced(1);
      const before = await roundTrips();
      const started = performance.now();
      alone.service.push(await throughService(one, 0));
      alone.roundTrips += (await roundTrips()) - before - backgroundPerMs * (performance.now() - started);
      alone.upstream.push(...(await burst(straight, 1)));
    }

    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    const figures = (through: number[], straightUp: number[]) => {
      const s = sorted(through);
      const u = sorted(straightUp);
      return {
        service: `${percentile(s, 50).toFixed(1)} / ${percentile(s, 99).toFixed(1)}`,
        upstream: `${percentile(u, 50).toFixed(1)} / ${percentile(u, 99).toFixed(1)}`,
        added: `${(percentile(s, 50) - percentile(u, 50)).toFixed(1)} / ${(percentile(s, 99) - percentile(u, 99)).toFixed(1)}`,
      };
    };
    const busy = figures(service, upstream);
    const single = figures(alone.service, alone.upstream);
    printTable(`3. complete checkouts (no 3-D Secure, sandbox latency 20 ms; instances and sandbox in processes of their own)`, [
      ['instances; checkouts at once × rounds', `${options.instances}; ${options.concurrency} × ${options.rounds}`],
      ['Open API calls per checkout', (serviceCalls / service.length).toFixed(2)],
      ['checkouts per second (in the rounds)', ((1000 * service.length) / serviceWallMs).toFixed(1)],
      ['service CPU per checkout (ms, all instances)', (serviceCpuMs / service.length).toFixed(1)],
      [
        `Redis round trips per checkout (session + card, all instances), ${options.concurrency} at once`,
        (redisCalls / service.length).toFixed(1),
      ],
      [
        "Redis round trips per checkout, one at a time (less the instances' idle commands)",
        (alone.roundTrips / alone.service.length).toFixed(1),
      ],
      ["the instances' idle commands per second (all instances)", (backgroundPerMs * 1000).toFixed(1)],
      [`service p50 / p99 (ms), ${options.concurrency} at once`, busy.service],
      [`upstream alone p50 / p99 (ms), ${options.concurrency} at once`, busy.upstream],
      [`added by the service p50 / p99 (ms), ${options.concurrency} at once`, busy.added],
      ['service p50 / p99 (ms), one at a time', single.service],
      ['upstream alone p50 / p99 (ms), one at a time', single.upstream],
      ['added by the service p50 / p99 (ms), one at a time', single.added],
    ]);
  } finally {
    await Promise.all(instances.map((instance) => instance.stop()));
    await sandbox.stop();
    await deleteKeys(redisUrl, prefix);
  }
}

/**
 * The sandbox answering after `latencyMs`, the account announcing its reservations, and the
 * environment of instances whose budgets no checkout meets (scenario 2 measures those).
 */
async function checkoutWorld(latencyMs: number, extra: Record<string, string> = {}) {
  const subscription = webhookSubscription(true);
  const sandbox = await startSandboxProcess({ latencyMs, rateLimits: PLENTY, ...subscription.sandbox });
  const redisUrl = benchRedisUrl();
  const prefix = benchKeyPrefix();
  const env = {
    ...serviceEnvironment(sandbox.urls, redisUrl, prefix),
    ...subscription.env,
    NODE_ENV: 'development',
    UPSTREAM_RATE_LIMITS: '100000/s,1000000/m,10000000/h',
    CHECKOUT_IP_RATE_LIMIT: '100000/m',
    CHECKOUT_IP_READ_LIMIT: '100000/m',
    CHECKOUT_CARD_ATTEMPTS: '1000/h',
    ...extra,
  };
  return { subscription, sandbox, redisUrl, prefix, env };
}

async function reservation(sandbox: SandboxProcess): Promise<Reservation> {
  const guestEmail = `bench-${randomUUID().slice(0, 8)}@example.com`;
  const created = await sandbox.createReservation({ listingId: 'lst-seaside', guestEmail, balanceDue: 100, currency: 'USD' });
  return { ...created, guestEmail };
}

/**
 * The fewest upstream waits a checkout can make on the platform's current surface, straight to the
 * sandbox: the reservation; its guest's email, folio total and payments side by side; the card's
 * tokenization; the attach. What the service adds is measured over this.
 */
async function straightToUpstream(sandbox: SandboxProcess): Promise<Checkout> {
  const { apiUrl, payUrl } = sandbox.urls;
  const tokenAnswer = await fetch(`${apiUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      scope: 'open-api',
      client_id: SANDBOX_CLIENT_ID,
      client_secret: SANDBOX_CLIENT_SECRET,
    }),
  });
  const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
  const auth = { Authorization: `Bearer ${token}` };
  return async ({ reservationId, guestId }) => {
    const started = performance.now();
    const read = await fetch(`${apiUrl}/v1/reservations-v3?reservationIds[]=${reservationId}`, { headers: auth });
    const [found] = (await read.json()) as { confirmationCode?: string }[];
    await Promise.all([
      timed(`${apiUrl}/v1/guests-crud/${guestId}?fields=email`, { headers: auth }),
      timed(`${apiUrl}/v1/guest-folio/overview?reservationIds=${reservationId}&fields=hostPayout,totalTaxes,currency`, { headers: auth }),
      timed(`${apiUrl}/v1/payments?reservationId=${reservationId}`, { headers: auth }),
    ]);
    const tokenized = await fetch(
      `${payUrl}/api/tokenize/v2`,
      json({ ...CARD, paymentProviderId: 'pp-seaside', listingId: 'lst-seaside', threeDS: { amount: 100, currency: 'USD' } }),
    );
    const { _id } = (await tokenized.json()) as { _id: string };
    const attached = await timed(
      `${apiUrl}/v1/payment-methods`,
      json({ guestId, _id, paymentProviderId: 'pp-seaside', confirmationCode: found?.confirmationCode, reuse: false }, auth),
    );
    if (attached.status >= 300) throw new Error(`the straight attach answered ${attached.status}`);
    return performance.now() - started;
  };
}

/**
 * Scenario 12: what a guest waits for at a platform's real latency (250 ms a call): a session open
 * and a card press, one at a time on one instance, against two platform waits plus 30 ms each; on
 * reservations announced by webhook and not.
 */
export async function guestWaits(options: { checkouts: number; latencyMs: number }): Promise<void> {
  const { subscription, sandbox, redisUrl, prefix, env } = await checkoutWorld(options.latencyMs, {
    UPSTREAM_TIMEOUT_MS: String(Math.max(3_000, options.latencyMs * 8)),
  });
  let instance: ServiceProcess | undefined;
  try {
    instance = await startServiceProcess(env);
    const url = instance.url;
    const checkout = async (announced: boolean) => {
      if (announced) await sandbox.setWebhookTarget(subscription.target(url));
      const one = await reservation(sandbox);
      if (announced) {
        await sandbox.webhooksSettled();
        await sandbox.setWebhookTarget(undefined);
      }
      const opened = performance.now();
      const session = await fetch(`${url}/checkout/sessions`, json({ reservationId: one.reservationId, email: one.guestEmail }));
      const { id } = (await session.json()) as { id: string };
      const pressed = performance.now();
      const paid = await fetch(`${url}/checkout/sessions/${id}/payment-method`, json(CARD, { 'Idempotency-Key': randomUUID() }));
      const { status } = (await paid.json()) as { status: string };
      if (status !== 'succeeded') throw new Error(`a bench checkout ended ${status}`);
      return { open: pressed - opened, card: performance.now() - pressed };
    };
    // Warm: the token, the provider, the code paths.
    await checkout(true);
    await checkout(false);
    const median = (values: number[]) =>
      percentile(
        [...values].sort((a, b) => a - b),
        50,
      ).toFixed(0);
    const rows: [string, string][] = [];
    for (const announced of [true, false]) {
      const waits = { open: [] as number[], card: [] as number[] };
      for (let i = 0; i < options.checkouts; i += 1) {
        const { open, card } = await checkout(announced);
        waits.open.push(open);
        waits.card.push(card);
      }
      const which = announced ? 'announced reservation' : 'reservation not announced';
      rows.push([`session open, median ms (${which})`, median(waits.open)], [`card press, median ms (${which})`, median(waits.card)]);
    }
    printTable(
      `12. what a guest waits for at ${options.latencyMs} ms a platform call (one instance, one at a time, ${options.checkouts} each)`,
      [...rows, ['goal for each (2 × latency + 30 ms)', String(2 * options.latencyMs + 30)]],
    );
  } finally {
    await instance?.stop();
    await sandbox.stop();
    await deleteKeys(redisUrl, prefix);
  }
}
