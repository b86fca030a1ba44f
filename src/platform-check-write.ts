import { DestinationStream } from 'pino';
import { createApp } from './app.factory';
import { RequestLimits } from './common/abuse/request-limits';
import { AppConfig } from './config/app-config';
import { FollowUps } from './journal/follow-ups';
import { RedisKeys } from './redis/redis-keys';
import { CheckedOperation } from './upstream/platform-check/check-report';

/** One write of the walk, reported like a read: confirmed when it landed, contradicted when refused, unreadable when unanswered. */
export type WriteStep = Omit<CheckedOperation, 'resource' | 'surface' | 'configured'>;

/** The test card: `PLATFORM_CHECK_CARD` (`number|MM|YYYY|cvc`), else the sandbox's and GuestyPay's card that always succeeds. */
export function testCard(value: string | undefined): { number: string; exp_month: string; exp_year: string; cvc: string } {
  if (!value) return { number: '4242424242424242', exp_month: '12', exp_year: String(new Date().getUTCFullYear() + 3), cvc: '123' };
  const [number, month, year, cvc] = value.split('|').map((part) => part.trim());
  if (!/^\d{12,19}$/.test(number ?? '') || !/^\d{2}$/.test(month ?? '') || !/^\d{4}$/.test(year ?? '') || !/^\d{3,4}$/.test(cvc ?? ''))
    throw new Error('PLATFORM_CHECK_CARD must be number|MM|YYYY|cvc (digits only)');
  return { number: number, exp_month: month, exp_year: year, cvc: cvc };
}

const DAY_MS = 86_400_000;
/** Far enough ahead that no real guest wants those nights while the walk holds them. */
const DAYS_AHEAD = 300;
const CONFIRM_WAIT_MS = 30_000;
const LOOPBACK = '127.0.0.1';
/** The product's answers that ask the guest to send the same request again shortly, and how long the walk does. */
const AGAIN = ['step_in_progress', 'outcome_pending'];
const RETRY_FOR_MS = 150_000;

/** A problem's words as the service answered them (never an object's default text). */
function words(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A step that did not land, in the service's words: its problem code and detail, or the status it answered (a card asking 3-D Secure). */
function refused(answer: Answer): string {
  const code = words(answer.body.code);
  if (code) return `${answer.status} ${code}: ${words(answer.body.detail ?? answer.body.title)}`;
  return `${answer.status}${words(answer.body.status) ? `, status ${words(answer.body.status)}` : ''}${words(answer.body.detail) ? `: ${words(answer.body.detail)}` : ''}`;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * `--write`: a guest's whole booking on a test listing, through the product itself (booted here on
 * a loopback port with the operator's environment, so every write goes through its journal): quote,
 * guest and held reservation, the test card tokenized and attached, the confirmation, then the
 * booking room's own cancel, run whatever failed before it.
 */
export async function bookAndCancel(
  config: AppConfig,
  listingId: string,
  card: ReturnType<typeof testCard>,
  logDestination: DestinationStream,
): Promise<WriteStep[]> {
  const { app } = await createApp({ ...config, http: { ...config.http, port: 0 } }, { logDestination });
  const steps: WriteStep[] = [];
  let booked: { reservationId: string; sessionId: string } | undefined;
  try {
    await app.listen({ port: 0, host: LOOPBACK });
    const address = app.getHttpServer().address();
    const base = `http://${LOOPBACK}:${typeof address === 'object' && address ? address.port : 0}`;
    const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> => {
      const key = crypto.randomUUID();
      const until = Date.now() + RETRY_FOR_MS;
      for (;;) {
        const answer = await fetch(`${base}${path}`, {
          method,
          headers: body === undefined ? {} : { 'Content-Type': 'application/json', 'Idempotency-Key': key },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await answer.text();
        const read = { status: answer.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
        // As a guest's page would: the same request under the same key while the service says "try again in a moment".
        const wait = Number(answer.headers.get('retry-after') ?? 2) * 1000;
        if (!AGAIN.includes(words(read.body.code)) || Date.now() + wait > until) return read;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    };
    const step = (operation: string, path: string, expected: string, answer: Answer, found: string, ok: boolean): boolean => {
      steps.push({
        operation,
        path,
        expected,
        verdict: ok ? 'confirmed' : answer.status >= 500 || answer.status === 0 ? 'unreadable' : 'contradicted',
        found: ok ? found : refused(answer),
        productWill: ok ? 'does this for a guest' : 'refuses a guest here the same way',
      });
      return ok;
    };

    const stay = await firstStay(call, listingId);
    const quote = await call('POST', '/checkout/quotes', { listingId, checkIn: stay.checkIn, checkOut: stay.checkOut, guestsCount: 1 });
    const quoteId = quote.body.id as string | undefined;
    if (
      !step(
        'quote',
        'POST /checkout/quotes',
        `a quote for ${stay.checkIn} → ${stay.checkOut}`,
        quote,
        `quote ${quoteId}`,
        quote.status === 201 && !!quoteId,
      )
    )
      return steps;

    const guest = { firstName: 'Platform', lastName: 'Check', email: 'platform-check@example.com' };
    const session = await call('POST', '/checkout/sessions', { quoteId, guest });
    const booking = session.body.booking as { reservationId?: string; confirmationCode?: string; status?: string } | undefined;
    if (booking?.reservationId) booked = { reservationId: booking.reservationId, sessionId: session.body.id as string };
    const held = session.status === 201 && booking?.status === 'reserved';
    if (
      !step(
        'guest and held reservation',
        'POST /checkout/sessions {quoteId, guest}',
        'the guest, then a reservation held on the quote',
        session,
        `reservation ${booking?.reservationId} (${booking?.confirmationCode}), reserved`,
        held,
      ) ||
      !booked
    )
      return steps;

    const paid = await call('POST', `/checkout/sessions/${booked.sessionId}/payment-method`, {
      card,
      billing_details: { name: 'Platform Check', address: { line1: '1 Test Street', city: 'Austin', postal_code: '78701', country: 'US' } },
    });
    const method = paid.body.paymentMethod as { last4?: string } | undefined;
    if (
      !step(
        'card tokenized and attached',
        'POST /checkout/sessions/{id}/payment-method (a test card)',
        'the test card tokenized with the listing’s provider and attached to the reservation',
        paid,
        `card …${method?.last4 ?? '?'} attached`,
        paid.status === 200 && paid.body.status === 'succeeded',
      )
    )
      return steps;

    if (config.booking.confirmation !== 'instant') {
      steps.push({
        operation: 'confirmed',
        path: 'PUT /reservations-v3/{id}/status (the booking confirmation)',
        expected: 'the reservation confirmed once its card is on file',
        verdict: 'confirmed',
        found: 'not sent: BOOKING_CONFIRMATION=request leaves the reservation to the property',
        productWill: 'leaves a paid reservation reserved for the property to confirm',
      });
      return steps;
    }
    const status = await confirmation(call, booked.sessionId);
    step(
      'confirmed',
      'PUT /reservations-v3/{id}/status (the booking confirmation, after the card)',
      'the reservation confirmed once its card is on file',
      { status: status === 'confirmed' ? 200 : 0, body: { detail: `still ${status} after ${CONFIRM_WAIT_MS / 1000} s` } },
      'confirmed',
      status === 'confirmed',
    );
    return steps;
  } catch (error) {
    steps.push({
      operation: 'walk',
      path: '-',
      expected: 'each step answered',
      verdict: 'unreadable',
      found: error instanceof Error ? error.message : String(error),
      productWill: '-',
    });
    return steps;
  } finally {
    if (booked) steps.push(await cancel(app.get(FollowUps), app.get(RequestLimits), booked, listingId));
    else if (steps.length > 0) steps.push({ ...CLEANUP, found: 'nothing to cancel: no reservation was made' });
    await app.close();
  }
}

const CLEANUP = {
  operation: 'cancelled (cleanup)',
  path: 'PUT /reservations-v3/{id}/status canceled (the booking room’s orphan cancel, journaled)',
  expected: 'the test reservation canceled, whatever failed before',
  verdict: 'confirmed' as const,
  productWill: 'cancels a reservation no session can follow the same way',
};

/** The booking room's own cancel of a reservation no session follows: journaled, and left to the service's sweep if not done now. */
async function cancel(
  followUps: FollowUps,
  limits: RequestLimits,
  booked: { reservationId: string; sessionId: string },
  listingId: string,
): Promise<WriteStep> {
  const outcome = await followUps.recordAndRun({
    kind: 'cancel-orphan',
    reservationId: booked.reservationId,
    sessionRef: RedisKeys.sessionRef(booked.sessionId),
    listingId,
    network: limits.holdNetworkOf(LOOPBACK),
  });
  if (outcome === 'done') return { ...CLEANUP, found: `reservation ${booked.reservationId} canceled` };
  return {
    ...CLEANUP,
    verdict: outcome === 'refused' ? 'contradicted' : 'unreadable',
    found:
      outcome === 'refused'
        ? `the platform refused to cancel ${booked.reservationId}: cancel it in the platform's dashboard`
        : `not canceled yet: kept in Redis, the service's sweep cancels ${booked.reservationId} (check it is canceled)`,
  };
}

/** The shortest stay the calendar allows, on the first night free from ~300 days ahead. */
async function firstStay(
  call: (method: 'GET', path: string) => Promise<Answer>,
  listingId: string,
): Promise<{ checkIn: string; checkOut: string }> {
  const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
  const answer = await call(
    'GET',
    `/checkout/listings/${encodeURIComponent(listingId)}/calendar?from=${day(DAYS_AHEAD)}&to=${day(DAYS_AHEAD + 60)}`,
  );
  const days = (answer.body.days ?? []) as { date: string; available: boolean; minNights: number; checkInAllowed: boolean }[];
  for (const [index, first] of days.entries()) {
    const nights = Math.max(1, first.minNights);
    if (
      first.available &&
      first.checkInAllowed &&
      days.slice(index, index + nights).every((night) => night.available) &&
      days[index + nights]
    )
      return { checkIn: first.date, checkOut: days[index + nights].date };
  }
  // The quote says why these dates cannot be booked, in the product's words.
  return { checkIn: day(DAYS_AHEAD), checkOut: day(DAYS_AHEAD + 1) };
}

/** The session's booking status once confirmed, or the last seen when the wait ends. */
async function confirmation(call: (method: 'GET', path: string) => Promise<Answer>, sessionId: string): Promise<string> {
  const until = Date.now() + CONFIRM_WAIT_MS;
  let status = 'unknown';
  while (Date.now() < until) {
    const answer = await call('GET', `/checkout/sessions/${sessionId}`);
    status = String((answer.body.booking as { status?: string } | undefined)?.status ?? status);
    if (status === 'confirmed') return status;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return status;
}
