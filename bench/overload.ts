import { randomUUID } from 'node:crypto';
import { busiestWindow, startBenchWorld } from './bench-world';
import { printTable } from './cold-start';

const CARD = {
  card: { number: '4242424242424242', exp_month: '12', exp_year: String(new Date().getUTCFullYear() + 2), cvc: '123' },
  billing_details: { name: 'Bench Guest', address: { line1: '1 Bench Street', city: 'Miami Beach', postal_code: '33139', country: 'US' } },
};

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

/**
 * Scenario 2 — overload: for `seconds`, demand about 10× the upstream's 120/min budget (reads of
 * uncached listings plus complete checkouts), with the real limits on both sides. Prints the 429s
 * received, the busiest windows, the budget used, and how checkouts fared against reads.
 */
export async function overload(options: { instances: number; seconds: number }): Promise<void> {
  const world = await startBenchWorld(options.instances, {
    env: { CHECKOUT_IP_RATE_LIMIT: '100000/m', CHECKOUT_IP_READ_LIMIT: '100000/m', CHECKOUT_CARD_ATTEMPTS: '1000/h' },
  });
  try {
    const { control } = world.sandbox;
    const url = (i: number) => world.instances[i % world.instances.length].url;
    const reads = { started: 0, served: 0, refused: 0 };
    const checkouts = { started: 0, served: 0, refused: 0 };
    const pending: Promise<void>[] = [];
    const readOnce = async (i: number) => {
      reads.started += 1;
      const answer = await fetch(`${url(i)}/checkout/listings/lst-unknown-${randomUUID().slice(0, 8)}`);
      await answer.arrayBuffer();
      if (answer.status === 404) reads.served += 1;
      else reads.refused += 1;
    };
    const checkoutOnce = async (i: number) => {
      checkouts.started += 1;
      const guestEmail = `load-${randomUUID().slice(0, 8)}@example.com`;
      const { reservationId } = control.createReservation({ listingId: 'lst-seaside', guestEmail, balanceDue: 100, currency: 'USD' });
      const session = await post(`${url(i)}/checkout/sessions`, { reservationId, email: guestEmail });
      const created = (await session.json()) as { id?: string };
      if (!created.id) {
        checkouts.refused += 1;
        return;
      }
      const paid = await post(`${url(i)}/checkout/sessions/${created.id}/payment-method`, CARD, { 'Idempotency-Key': randomUUID() });
      const { status } = (await paid.json()) as { status?: string };
      if (status === 'succeeded') checkouts.served += 1;
      else checkouts.refused += 1;
    };
    // Warm the token and the provider cache, then start measuring.
    await checkoutOnce(0);
    Object.assign(checkouts, { started: 0, served: 0, refused: 0 });
    const logStart = control.requestLog.length;
    const perSecond = 20; // 10 × the 120/min budget, in requests that each need at least one call
    const end = Date.now() + options.seconds * 1000;
    for (let tick = 0; Date.now() < end; tick += 1) {
      pending.push(tick % 4 === 3 ? checkoutOnce(tick) : readOnce(tick));
      await new Promise((resolve) => setTimeout(resolve, 1000 / perSecond));
    }
    await Promise.allSettled(pending);
    const calls = control.requestLog.slice(logStart).filter((entry) => entry.route !== 'token' && entry.route !== 'tokenize');
    const times = calls.map((entry) => entry.time);
    const busiestMinute = busiestWindow(times, 60_000);
    const share = (part: { started: number; served: number }) =>
      part.started ? `${((100 * part.served) / part.started).toFixed(0)} % of ${part.started}` : 'none';
    const rows: [string, string][] = [
      ['duration, instances', `${options.seconds} s, ${options.instances}`],
      ['demand', `${perSecond} requests/s (3 reads : 1 checkout), ~25 upstream calls/s`],
      ['upstream 429s received', String(control.counters.rateLimited)],
      ['upstream calls made', String(calls.length)],
      ['busiest 1 s / 60 s window', `${busiestWindow(times, 1000)} / ${busiestMinute}`],
      ['budget used in the busiest minute', `${((100 * Math.min(busiestMinute, 120)) / 120).toFixed(0)} % of 120`],
      ['checkouts completed', share(checkouts)],
      ['reads answered', share(reads)],
    ];
    printTable('2. overload at ~10× the upstream budget (limits 15/s, 120/min)', rows);
  } finally {
    await world.close();
  }
}
