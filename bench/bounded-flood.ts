import Redis from 'ioredis';
import { randomBytes, randomUUID } from 'node:crypto';
import { startBenchWorld } from './bench-world';
import { printTable } from './cold-start';

const CARD = {
  card: { number: '4242424242424242', exp_month: '12', exp_year: String(new Date().getUTCFullYear() + 2), cvc: '123' },
  billing_details: { name: 'Bench Guest', address: { line1: '1 Bench Street', city: 'Miami Beach', postal_code: '33139', country: 'US' } },
};
const ADDRESSES = 8;
const IN_FLIGHT_PER_ADDRESS = 2;
/** Lanes whose every request comes from a fresh address: IPv4 anywhere, and IPv6 /64s of one /48. */
const ROTATING_LANES = 4;
/**
 * The real checkouts' pace, within the budget they keep: a full anonymous share (half of 120 calls a
 * minute) and the background reserve (12) leave 48; a checkout makes 6 on the current surface, so
 * 36 a minute leaves room for the misses replicas read before they learn the account announces.
 */
const CHECKOUT_EVERY_MS = 10_000;
const DAY_MS = 86_400_000;

/** What the flood sends in turn; a booking's quote is counted apart from the booking it leads to. */
type Operation = (typeof OPERATIONS)[number] | 'quote';
const OPERATIONS = [
  'summary',
  'calendar',
  'booking',
  'unknown quote',
  'unknown session',
  'card on unknown session',
  'unknown reservation',
] as const;

const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
const token = (bytes: number) => randomBytes(bytes).toString('base64url');
const json = (body: unknown, headers: Record<string, string>) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const newGuest = () => ({ firstName: 'Flood', lastName: 'Guest', email: `flood-${randomUUID().slice(0, 8)}@example.com` });

interface RedisFigures {
  keys: number;
  bytes: number;
  usedMemory: number;
  byFamily: Map<string, { keys: number; longLived: number }>;
}

/** The run's keys (count, MEMORY USAGE, by family, and how many live past an hour) and the server's used_memory. */
async function redisFigures(redis: Redis, prefix: string): Promise<RedisFigures> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.memory('USAGE', key).pttl(key);
  const answers = (await pipeline.exec()) ?? [];
  const byFamily = new Map<string, { keys: number; longLived: number }>();
  let bytes = 0;
  keys.forEach((key, index) => {
    bytes += Number(answers[2 * index]?.[1] ?? 0);
    const ttl = Number(answers[2 * index + 1]?.[1] ?? -1);
    // The family is the first name after the prefix, without a hash tag's braces or its subject.
    const family = key.slice(prefix.length).replace(/^\{/, '').split(/[:}]/, 1)[0];
    const figures = byFamily.get(family) ?? { keys: 0, longLived: 0 };
    figures.keys += 1;
    if (ttl < 0 || ttl > 3_600_000) figures.longLived += 1;
    byFamily.set(family, figures);
  });
  const usedMemory = Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1] ?? 0);
  return { keys: keys.length, bytes, usedMemory, byFamily };
}

/** Upstream calls granted by the instances' outbound budget, by priority (the limiter's wait histogram counts each grant). */
async function grantsByPriority(urls: string[]): Promise<Record<string, number>> {
  const grants: Record<string, number> = {};
  for (const url of urls) {
    const text = await (await fetch(`${url}/metrics`)).text();
    for (const [, priority, count] of text.matchAll(/^upstream_limiter_wait_seconds_count\{priority="(\w+)"\} (\d+)/gm)) {
      grants[priority] = (grants[priority] ?? 0) + Number(count);
    }
  }
  return grants;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

/**
 * Scenarios 10 and 11 (`webhooks` false), a bounded flood (docs/benchmarks.md): eight addresses keep
 * two requests each in flight (eight lanes more use a fresh address per request) through anonymous
 * reads, bookings and unknown ids, beside a real checkout every 10 s. Reports what the flood left in
 * Redis and the upstream calls granted by share.
 */
export async function boundedFlood(options: { instances: number; seconds: number; webhooks?: boolean }): Promise<void> {
  const webhooks = options.webhooks !== false;
  const world = await startBenchWorld(options.instances, { env: { TRUST_PROXY: '1' }, webhooks });
  const redis = new Redis(world.redisUrl);
  try {
    const { control } = world.sandbox;
    const urls = world.instances.map((instance) => instance.url);
    const answers = new Map<Operation, Map<string, number>>();
    const count = (operation: Operation, outcome: string) => {
      const outcomes = answers.get(operation) ?? new Map<string, number>();
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      answers.set(operation, outcomes);
    };
    const send = async (operation: Operation, url: string, path: string, init: RequestInit = {}) => {
      const answer = await fetch(`${url}${path}`, init);
      const body = (await answer.json().catch(() => ({}))) as { id?: string; code?: string };
      count(operation, `${answer.status}${body.code ? ` ${body.code}` : ''}`);
      return body;
    };
    const once = async (operation: (typeof OPERATIONS)[number], url: string, from: Record<string, string>) => {
      const withKey = { ...from, 'Idempotency-Key': randomUUID() };
      if (operation === 'summary') return send(operation, url, `/checkout/listings/lst-anon-${token(6)}`, { headers: from });
      if (operation === 'calendar')
        return send(operation, url, `/checkout/listings/lst-seaside/calendar?from=${day(1)}&to=${day(60)}`, { headers: from });
      if (operation === 'unknown quote')
        return send(operation, url, '/checkout/sessions', json({ quoteId: `q_${token(16).slice(0, 22)}`, guest: newGuest() }, withKey));
      if (operation === 'unknown session') return send(operation, url, `/checkout/sessions/cs_${token(24)}`, { headers: from });
      if (operation === 'card on unknown session')
        return send(operation, url, `/checkout/sessions/cs_${token(24)}/payment-method`, json(CARD, withKey));
      if (operation === 'unknown reservation')
        return send(operation, url, '/checkout/sessions', json({ reservationId: `res-${token(9)}`, email: newGuest().email }, from));
      const offset = 20 + Math.floor(Math.random() * 300);
      const quote = await send(
        'quote',
        url,
        '/checkout/quotes',
        json({ listingId: 'lst-seaside', checkIn: day(offset), checkOut: day(offset + 2), guestsCount: 2 }, from),
      );
      if (quote.id) await send(operation, url, '/checkout/sessions', json({ quoteId: quote.id, guest: newGuest() }, withKey));
    };
    const tally = () => ({ started: 0, completed: 0, failures: new Map<string, number>() });
    // `emailOnly`: without webhooks, guests who give only their email, beside those giving the code too.
    const checkouts = { real: tally(), emailOnly: tally() };
    let guests = 0;
    const checkoutOnce = async (url: string, coded = !webhooks) => {
      const counts = webhooks || coded ? checkouts.real : checkouts.emailOnly;
      counts.started += 1;
      guests += 1;
      const from = { 'X-Forwarded-For': `10.250.${(guests >> 8) & 255}.${guests & 255}` };
      const guestEmail = `guest-${randomUUID().slice(0, 8)}@example.com`;
      const { reservationId } = control.createReservation({ listingId: 'lst-seaside', guestEmail, balanceDue: 100, currency: 'USD' });
      // The guest has the reservation once the platform told the service of it (its webhook answered);
      // without webhooks, the guest may give the code printed on their confirmation as well.
      if (webhooks) await control.webhooksSettled();
      const code = coded ? { confirmationCode: String(control.getReservation(reservationId)?.confirmationCode) } : {};
      const created = await fetch(`${url}/checkout/sessions`, json({ reservationId, email: guestEmail, ...code }, from));
      const session = (await created.json()) as { id?: string; code?: string; detail?: string };
      const failed = (step: string, status: number, why = '') => {
        const key = `${step} ${status} ${why}`.trim();
        counts.failures.set(key, (counts.failures.get(key) ?? 0) + 1);
      };
      // The detail tells which 503 it was: the budget's share, or the network's lookups.
      if (!session.id) return failed('session', created.status, `${session.code} (${session.detail})`);
      const paid = await fetch(
        `${url}/checkout/sessions/${session.id}/payment-method`,
        json(CARD, { ...from, 'Idempotency-Key': randomUUID() }),
      );
      const answer = (await paid.json().catch(() => ({}))) as { status?: string; code?: string };
      if (answer.status === 'succeeded') counts.completed += 1;
      else failed('card', paid.status, answer.code ?? answer.status);
    };
    const paidOf = ({ started, completed, failures }: ReturnType<typeof tally>) =>
      `${completed} of ${started}${failures.size ? ` (${JSON.stringify(Object.fromEntries(failures))})` : ''}`;

    // Warm the token and the provider cache, then measure from here.
    await checkoutOnce(urls[0]);
    Object.assign(checkouts, { real: tally(), emailOnly: tally() });
    const before = await redisFigures(redis, world.prefix);
    const grantsBefore = await grantsByPriority(urls);
    const logStart = control.requestLog.length;
    const rateLimitedBefore = control.counters.rateLimited;

    const end = Date.now() + options.seconds * 1000;
    const attacker = async (address: number, lane: number) => {
      const from = { 'X-Forwarded-For': `10.${address}.0.1` };
      for (let step = lane; Date.now() < end; step += IN_FLIGHT_PER_ADDRESS) {
        const operation = OPERATIONS[step % OPERATIONS.length];
        await once(operation, urls[(address + step) % urls.length], from).catch(() => count(operation, 'no answer'));
      }
    };
    const rotating = async (lane: number, version: 4 | 6) => {
      for (let step = lane; Date.now() < end; step += ROTATING_LANES) {
        const byte = () => Math.floor(Math.random() * 256);
        const address =
          version === 4
            ? `11.${byte()}.${byte()}.${byte()}`
            : `2001:db8:77:${((byte() << 8) | byte()).toString(16)}::${byte().toString(16)}`;
        const operation = OPERATIONS[step % OPERATIONS.length];
        await once(operation, urls[step % urls.length], { 'X-Forwarded-For': address }).catch(() => count(operation, 'no answer'));
      }
    };
    const flood = [
      ...Array.from({ length: ADDRESSES * IN_FLIGHT_PER_ADDRESS }, (_, i) => attacker(i % ADDRESSES, Math.floor(i / ADDRESSES))),
      ...Array.from({ length: ROTATING_LANES }, (_, lane) => rotating(lane, 4)),
      ...Array.from({ length: ROTATING_LANES }, (_, lane) => rotating(lane, 6)),
    ];
    const real: Promise<void>[] = [];
    for (let tick = 0; Date.now() < end; tick += 1) {
      real.push(checkoutOnce(urls[tick % urls.length]).catch(() => undefined));
      if (!webhooks) real.push(checkoutOnce(urls[(tick + 1) % urls.length], false).catch(() => undefined));
      await new Promise((resolve) => setTimeout(resolve, Math.min(CHECKOUT_EVERY_MS, Math.max(0, end - Date.now()))));
    }
    await Promise.all([...flood, ...real]);

    const after = await redisFigures(redis, world.prefix);
    const grantsAfter = await grantsByPriority(urls);
    const calls = control.requestLog.length - logStart;
    const grants = (priority: string) => (grantsAfter[priority] ?? 0) - (grantsBefore[priority] ?? 0);
    const sent = [...answers.values()].reduce((sum, outcomes) => sum + [...outcomes.values()].reduce((a, b) => a + b, 0), 0);
    const families = [...new Set([...before.byFamily.keys(), ...after.byFamily.keys()])].sort();
    const rows: [string, string][] = [
      ['duration, instances', `${options.seconds} s, ${options.instances}`],
      [
        'flood',
        `${ADDRESSES} addresses × ${IN_FLIGHT_PER_ADDRESS} in flight, and ${ROTATING_LANES} lanes each from a fresh IPv4 address per request and ${ROTATING_LANES} from fresh IPv6 /64s of one /48; default limits; ${sent} requests answered`,
      ],
      ...(['quote', ...OPERATIONS] as const).map((operation): [string, string] => [
        `  ${operation}`,
        [...(answers.get(operation) ?? new Map<string, number>()).entries()]
          .sort((a, b) => b[1] - a[1])
          .map(([outcome, times]) => `${times} × ${outcome}`)
          .join(', ') || 'none (its quote was refused)',
      ]),
      [webhooks ? 'real checkouts paid (goal: all)' : 'real checkouts giving the code paid (goal: all)', paidOf(checkouts.real)],
      ...(webhooks ? [] : [['  beside them, guests giving the email alone, paid', paidOf(checkouts.emailOnly)] as [string, string]]),
      ['Redis keys of the run, before → after', `${before.keys} → ${after.keys}`],
      ['their MEMORY USAGE, before → after', `${kb(before.bytes)} → ${kb(after.bytes)}`],
      ['INFO memory used_memory (whole server), before → after', `${kb(before.usedMemory)} → ${kb(after.usedMemory)}`],
      ...families.map((family): [string, string] => {
        const was = before.byFamily.get(family) ?? { keys: 0, longLived: 0 };
        const is = after.byFamily.get(family) ?? { keys: 0, longLived: 0 };
        return [`  ${family} keys (of them living > 1 h)`, `${was.keys} (${was.longLived}) → ${is.keys} (${is.longLived})`];
      }),
      [
        'upstream calls granted, by share',
        `anonymous ${grants('anonymous')}, checkout ${grants('checkout')}, session ${grants('session')}, background ${grants('background')}`,
      ],
      [
        'upstream requests the sandbox saw (Open API and pay host) / 429s',
        `${calls} / ${control.counters.rateLimited - rateLimitedBefore}`,
      ],
    ];
    printTable(
      webhooks
        ? '10. a bounded flood: anonymous reads, anonymous bookings and unknown ids from 8 addresses, beside a checkout every 10 s'
        : '11. the bounded flood on an account that sends no reservation webhooks, each guest giving their confirmation code',
      rows,
    );
  } finally {
    redis.disconnect();
    await world.close();
  }
}
