import { randomUUID } from 'node:crypto';
import { busiestWindow, startBenchWorld } from './bench-world';
import { printTable } from './cold-start';

const CARD = {
  card: { number: '4242424242424242', exp_month: '12', exp_year: String(new Date().getUTCFullYear() + 2), cvc: '123' },
  billing_details: { name: 'Bench Guest', address: { line1: '1 Bench Street', city: 'Miami Beach', postal_code: '33139', country: 'US' } },
};
const BUDGET_PER_MINUTE = 120;
const ANONYMOUS_SHARE = 50;

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Scenario 6, the anonymous flood (docs/benchmarks.md): anonymous reads of random listings at 10×
 * the upstream's 120/min, each from its own address so the budget share, not the per-IP limit, must
 * stop them; beside them a checkout and a booking each second (a booking before its card is
 * anonymous). Then 100 payment-status polls of one paid session across the instances.
 */
export async function anonymousFlood(options: { instances: number; seconds: number }): Promise<void> {
  const world = await startBenchWorld(options.instances, {
    env: {
      TRUST_PROXY: '1',
      UPSTREAM_ANONYMOUS_SHARE: String(ANONYMOUS_SHARE),
      CHECKOUT_IP_RATE_LIMIT: '100000/m',
      CHECKOUT_CARD_ATTEMPTS: '1000/h',
      BOOKING_UNPAID_HOLDS_PER_LISTING: '1000',
      BOOKING_UNPAID_NIGHTS_PER_LISTING: '100000',
    },
  });
  try {
    const { control } = world.sandbox;
    const url = (i: number) => world.instances[i % world.instances.length].url;
    const reads = { started: 0, served: 0, refused: 0 };
    const checkouts = { started: 0, completed: 0, sessions: [] as string[], failures: {} as Record<string, number> };
    const failed = (why: string) => void (checkouts.failures[why] = (checkouts.failures[why] ?? 0) + 1);
    let client = 0;
    const readOnce = async (i: number) => {
      reads.started += 1;
      client += 1;
      const forwarded = `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`;
      const answer = await fetch(`${url(i)}/checkout/listings/lst-anon-${randomUUID().slice(0, 8)}`, {
        headers: { 'X-Forwarded-For': forwarded },
      });
      await answer.arrayBuffer();
      if (answer.status === 404) reads.served += 1;
      else reads.refused += 1;
    };
    const bookings = { started: 0, made: 0, refused: {} as Record<string, number> };
    // A quote then a booking with a made-up guest, from an address of its own, on dates of its own.
    const bookOnce = async (i: number) => {
      bookings.started += 1;
      client += 1;
      const forwarded = { 'X-Forwarded-For': `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}` };
      const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
      const quote = await post(
        `${url(i)}/checkout/quotes`,
        { listingId: 'lst-seaside', checkIn: day(30 + 3 * i), checkOut: day(32 + 3 * i), guestsCount: 2 },
        forwarded,
      );
      const quoted = (await quote.json()) as { id?: string; code?: string };
      const refused = (why: string) => void (bookings.refused[why] = (bookings.refused[why] ?? 0) + 1);
      if (!quoted.id) return refused(`quote ${quote.status} ${quoted.code ?? ''}`.trim());
      const guest = { firstName: 'Flood', lastName: 'Guest', email: `flood-${randomUUID().slice(0, 8)}@example.com` };
      const booked = await post(
        `${url(i)}/checkout/sessions`,
        { quoteId: quoted.id, guest },
        { ...forwarded, 'Idempotency-Key': randomUUID() },
      );
      const answer = (await booked.json()) as { id?: string; code?: string };
      if (answer.id) bookings.made += 1;
      else refused(`booking ${booked.status} ${answer.code ?? ''}`.trim());
    };
    const checkoutOnce = async (i: number) => {
      checkouts.started += 1;
      const guestEmail = `flood-${randomUUID().slice(0, 8)}@example.com`;
      const { reservationId } = control.createReservation({ listingId: 'lst-seaside', guestEmail, balanceDue: 100, currency: 'USD' });
      const session = await post(`${url(i)}/checkout/sessions`, { reservationId, email: guestEmail });
      const created = (await session.json()) as { id?: string; code?: string };
      if (!created.id) return failed(`session ${session.status} ${created.code ?? ''}`.trim());
      const paid = await post(`${url(i)}/checkout/sessions/${created.id}/payment-method`, CARD, { 'Idempotency-Key': randomUUID() });
      const { status, code } = (await paid.json()) as { status?: string; code?: string };
      if (status === 'succeeded') {
        checkouts.completed += 1;
        checkouts.sessions.push(created.id);
      } else failed(`card ${paid.status} ${code ?? status ?? ''}`.trim());
    };
    // Warm the token and the provider cache, then start measuring.
    await checkoutOnce(0);
    Object.assign(checkouts, { started: 0, completed: 0, sessions: [], failures: {} });
    const logStart = control.requestLog.length;
    const rateLimitedBefore = control.counters.rateLimited;
    const readsPerSecond = (10 * BUDGET_PER_MINUTE) / 60;
    const pending: Promise<void>[] = [];
    const started = Date.now();
    const end = started + options.seconds * 1000;
    for (let tick = 0; Date.now() < end; tick += 1) {
      pending.push(readOnce(tick).catch(() => void (reads.refused += 1)));
      if (tick % readsPerSecond === 0) pending.push(checkoutOnce(tick / readsPerSecond).catch(() => undefined));
      if (tick % readsPerSecond === readsPerSecond / 2) pending.push(bookOnce(Math.floor(tick / readsPerSecond)).catch(() => undefined));
      await pause(1000 / readsPerSecond);
    }
    await Promise.allSettled(pending);
    const during = control.requestLog.slice(logStart);
    // A booking's quote, guest and reservation creates are anonymous traffic, like the reads (docs/product-spec.md §7).
    const ANONYMOUS_ROUTES = ['listing', 'createQuote', 'guests', 'reservationFromQuote', 'calendar'];
    const anonymous = during.filter((entry) => ANONYMOUS_ROUTES.includes(entry.route)).map((entry) => entry.time);
    const checkoutCalls = during.filter(
      (entry) => ![...ANONYMOUS_ROUTES, 'token', 'tokenize', 'issuerPage', 'issuerAction'].includes(entry.route),
    ).length;
    const minutes: string[] = [];
    for (let from = anonymous.length ? Math.min(...anonymous) : 0; anonymous.some((time) => time >= from); from += 60_000) {
      const used = anonymous.filter((time) => time >= from && time < from + 60_000).length;
      minutes.push(`${((100 * used) / BUDGET_PER_MINUTE).toFixed(0)} %`);
    }

    // 100 polls of one paid session, 10 a second, spread over the instances.
    const polled = checkouts.sessions[checkouts.sessions.length - 1];
    const pollStart = control.requestLog.length;
    const polls = { answered: 0, other: 0 };
    if (polled) {
      const answers: Promise<void>[] = [];
      for (let i = 0; i < 100; i += 1) {
        answers.push(
          fetch(`${url(i)}/checkout/sessions/${polled}/payment-status`).then(async (answer) => {
            await answer.arrayBuffer();
            if (answer.status === 200) polls.answered += 1;
            else polls.other += 1;
          }),
        );
        await pause(100);
      }
      await Promise.allSettled(answers);
    }
    const pollReads = control.requestLog
      .slice(pollStart)
      .filter((entry) => entry.route === 'reservation' || entry.route === 'listPaymentMethods').length;

    const rows: [string, string][] = [
      ['duration, instances', `${options.seconds} s, ${options.instances}`],
      [
        'anonymous demand',
        `${readsPerSecond} reads/s of random listing ids (10× the ${BUDGET_PER_MINUTE}/min budget), each from its own address`,
      ],
      [
        'checkouts completed (goal: all)',
        `${checkouts.completed} of ${checkouts.started}${Object.keys(checkouts.failures).length ? `; not completed: ${JSON.stringify(checkouts.failures)}` : ''}`,
      ],
      [
        'checkout upstream calls (Open API, not anonymous)',
        `${checkoutCalls} in all, ${(checkoutCalls / Math.max(1, checkouts.completed)).toFixed(1)} per completed checkout`,
      ],
      ['upstream 429s (goal: 0)', String(control.counters.rateLimited - rateLimitedBefore)],
      [`anonymous share used per minute (goal: ≤ ${ANONYMOUS_SHARE} %)`, minutes.join(', ') || 'none'],
      [
        'anonymous calls in the busiest 60 s / 1 s',
        `${busiestWindow(anonymous, 60_000)} of ${BUDGET_PER_MINUTE} / ${busiestWindow(anonymous, 1000)} of 15`,
      ],
      ['anonymous reads answered / refused', `${reads.served} / ${reads.refused} of ${reads.started}`],
      [
        'anonymous bookings (quote + booking, 1/s, each from its own address) made / not',
        `${bookings.made} / ${bookings.started - bookings.made}${Object.keys(bookings.refused).length ? ` (${JSON.stringify(bookings.refused)})` : ''}`,
      ],
      [
        'payment-status upstream reads per 100 polls (goal: ≤ 2)',
        polled ? `${pollReads} (${polls.answered} answered 200, ${polls.other} other)` : 'no paid session to poll',
      ],
    ];
    printTable('6. anonymous flood at 10× the budget and a booking a second beside one checkout a second (limits 15/s, 120/min)', rows);
  } finally {
    await world.close();
  }
}
