import { randomUUID } from 'node:crypto';
import { OutboundRateLimiter } from '../src/upstream/outbound-rate-limiter';
import { startBenchWorld } from './bench-world';
import { printTable } from './cold-start';
import { probedIdRows } from './probed-ids';

const READS = 200;
const day = (daysAhead: number) => new Date(Date.now() + daysAhead * 86_400_000).toISOString().slice(0, 10);

/**
 * Scenario 9, the budget at any replica count (issue 24; docs/benchmarks.md): upstream reads for
 * 200 concurrent identical reads across the instances; then, at the published 15/s and 120/min, 30
 * sessions on an instance whose granted calls are held back a second, as a stalled loop does, and
 * the upstream 429s that follow.
 */
export async function budgetFigures(options: { instances: number }): Promise<void> {
  const rows: [string, string][] = [];
  const shared = await startBenchWorld(options.instances, {
    env: { CHECKOUT_IP_READ_LIMIT: '100000/m', CHECKOUT_IP_RATE_LIMIT: '100000/m', UPSTREAM_ANONYMOUS_SHARE: '100' },
    sandbox: { latencyMs: 50 },
  });
  try {
    const { control } = shared.sandbox;
    const calls = (route: string, from: number) => control.requestLog.slice(from).filter((entry) => entry.route === route).length;
    const spread = (count: number, request: (url: string) => Promise<Response>) =>
      Promise.all(
        Array.from({ length: count }, (_, i) => request(shared.instances[i % shared.instances.length].url).then((answer) => answer.text())),
      );
    // The token minted first: the counts are of reads, not of a cold start.
    await (await fetch(`${shared.instances[0].url}/checkout/listings/lst-seaside`)).text();
    let before = control.requestLog.length;
    const [from, to] = [day(120), day(150)];
    await spread(READS, (url) => fetch(`${url}/checkout/listings/lst-seaside/calendar?from=${from}&to=${to}`));
    const months = new Set([from.slice(0, 7), to.slice(0, 7)]).size;
    rows.push([`calendar, ${READS} reads of one 30-day range (${months} months)`, `${calls('calendar', before)} upstream reads`]);
    before = control.requestLog.length;
    const quote = JSON.stringify({ listingId: 'lst-seaside', checkIn: day(160), checkOut: day(163), guestsCount: 2 });
    await spread(READS, (url) =>
      fetch(`${url}/checkout/quotes`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: quote }),
    );
    rows.push([`quote, ${READS} identical requests`, `${calls('createQuote', before)} upstream quotes`]);
    before = control.requestLog.length;
    await spread(READS, (url) => fetch(`${url}/checkout/listings/lst-mountain`));
    rows.push([`listing summary, ${READS} reads`, `${calls('listing', before)} upstream reads`]);
  } finally {
    await shared.close();
  }

  // Printed at once: the stalled loop below may hold its table up.
  printTable('9. what probing a reservation id costs: a session open on one instance, sandbox latency 50 ms', await probedIdRows());

  // The platform's published limits on both sides: the service's defaults and the sandbox's.
  const stalled = await startBenchWorld(1, { env: { CHECKOUT_IP_RATE_LIMIT: '100000/m' } });
  try {
    const limiter = stalled.instances[0].app.get(OutboundRateLimiter);
    const acquire = limiter.acquire.bind(limiter);
    let granted = 0;
    let wake!: () => void;
    const awake = new Promise<void>((resolve) => (wake = resolve));
    limiter.acquire = async (...args) => {
      const grant = await acquire(...args);
      granted += 1;
      if (granted === 30) wake();
      // Held until 15 more are granted, or a second at most: batched reads may never ask 15 more.
      if (granted <= 15) await Promise.race([awake, new Promise((resolve) => setTimeout(resolve, 1_000))]);
      return grant;
    };
    const { control } = stalled.sandbox;
    const statuses = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const guestEmail = `stalled-${randomUUID().slice(0, 8)}@example.com`;
        const { reservationId } = control.createReservation({ listingId: 'lst-seaside', guestEmail, balanceDue: 100, currency: 'USD' });
        const answer = await fetch(`${stalled.instances[0].url}/checkout/sessions`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ reservationId, email: guestEmail }),
        });
        const { code } = JSON.parse(await answer.text()) as { code?: string };
        return code ? `${answer.status} ${code}` : String(answer.status);
      }),
    );
    rows.push([
      '30 sessions, the first 15 granted calls held until 15 more are granted or a second passed (a stalled loop)',
      `${control.counters.rateLimited} upstream 429s; answers ${answerCounts(statuses)}`,
    ]);
  } finally {
    await stalled.close();
  }
  printTable(`9. the budget at any replica count (${options.instances} instances, sandbox latency 50 ms) and under a stalled loop`, rows);
}

/** "201 ×3, 503 rate_limited ×27": how many of each answer, in order. */
function answerCounts(statuses: string[]): string {
  const counts = new Map<string, number>();
  for (const status of [...statuses].sort()) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${status} ×${count}`).join(', ');
}
