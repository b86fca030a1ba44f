import { randomUUID } from 'node:crypto';
import { type Answer, Balancer, describeAnswer, type Verdict, verdictOf } from './balancer';
import { type CardSubmission, Ledger, type Told } from './ledger';
import type { Random } from './random';
import type { OperationPlan } from './schedule';
import { type ChaosWorld, EXTRAS } from './world';

/**
 * The guests: each operation is one guest's checkout or booking as a site makes it, pressing again
 * with the same Idempotency-Key while the outcome is open, and starting over with another card
 * (a new key) when told the card did not go through.
 */

const THREE_DS_CARD = '4000000000003220';
const INSUFFICIENT_FUNDS_CARD = '4000000000000341';
/** Between two presses while the outcome is open (the service says 2 s; the campaign runs on a smaller scale). */
const PRESS_AGAIN_MS = 300;
const READ_ATTEMPTS = 12;

export interface OperationContext {
  world: ChaosWorld;
  balancer: Balancer;
  ledger: Ledger;
  plan: OperationPlan;
  /** How long a guest keeps pressing while the outcome is open: past it, the outcome was not settled in time. */
  openLimitMs: number;
  /** Cards this guest has typed so far: each ends in digits of its own. */
  cardsTyped: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function billing() {
  return { name: 'Chaos Guest', address: { line1: '1 Ocean Drive', city: 'Miami Beach', postal_code: '33139', country: 'US' } };
}

function cardBody(number: string) {
  return { card: { number, exp_month: '12', exp_year: String(new Date().getUTCFullYear() + 3), cvc: '737' }, billing_details: billing() };
}

/** A Luhn-valid card the sandbox treats like 4242 4242 4242 4242, ending in `last4`. */
function cardEnding(random: Random, last4: string): string {
  const body = `4${Array.from({ length: 10 }, () => random.int(10)).join('')}`;
  for (let digit = 0; digit < 10; digit += 1) {
    const number = `${body}${digit}${last4}`;
    if (luhn(number)) return number;
  }
  throw new Error('no Luhn digit');
}

function luhn(number: string): boolean {
  let sum = 0;
  for (let index = 0; index < number.length; index += 1) {
    let digit = Number(number[number.length - 1 - index]);
    if (index % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

function toldOf(answer: Answer): Told {
  return { said: describeAnswer(answer), verdict: verdictOf(answer), code: answer.code, retryAfterSeconds: answer.retryAfterSeconds };
}

/** Presses (one replica, or two at once for a duplicate submission) until the answer is not open or the guest gives up. */
async function pressUntilSettled(
  ctx: OperationContext,
  told: Told[],
  send: () => Promise<Answer>,
  duplicate: boolean,
): Promise<Answer & { verdict: Verdict }> {
  const giveUpAt = Date.now() + ctx.openLimitMs;
  let first = duplicate;
  for (;;) {
    const answers = first ? await Promise.all([send(), pause(20).then(send)]) : [await send()];
    first = false;
    for (const answer of answers) told.push(toldOf(answer));
    const settled =
      answers.find((answer) => verdictOf(answer) === 'landed') ??
      answers.find((answer) => verdictOf(answer) === 'refused' || verdictOf(answer) === 'lost');
    if (settled) return { ...settled, verdict: verdictOf(settled) };
    if (Date.now() > giveUpAt) return { ...answers[0], verdict: 'open' };
    await pause(PRESS_AGAIN_MS);
  }
}

/** A read the guest's page makes: asked again (on whichever replica) until it answers, as long as a guest waits. */
async function read(ctx: OperationContext, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
  const giveUpAt = Date.now() + ctx.openLimitMs;
  for (;;) {
    const answer = await ctx.balancer.send(ctx.plan.random, method, path, { body });
    if ((answer.status > 0 && answer.status < 500 && answer.status !== 429) || Date.now() > giveUpAt) return answer;
    await pause(PRESS_AGAIN_MS);
  }
}

/** The session as a page polling it sees it once nothing is being confirmed any more (or the guest gave up). */
async function sessionOnceSettled(ctx: OperationContext, sessionId: string): Promise<Record<string, unknown> | undefined> {
  const giveUpAt = Date.now() + ctx.openLimitMs;
  for (;;) {
    const answer = await read(ctx, 'GET', `/checkout/sessions/${sessionId}`);
    if (answer.status === 200 && answer.body.status !== 'processing') return answer.body;
    if (answer.code === 'session_not_found') return { status: 'gone' };
    if (Date.now() > giveUpAt) return answer.status === 200 ? answer.body : undefined;
    await pause(PRESS_AGAIN_MS);
  }
}

async function openSession(ctx: OperationContext, reservationId: string, email: string, guestId: string): Promise<string | undefined> {
  const answer = await read(ctx, 'POST', '/checkout/sessions', { reservationId, email });
  if (answer.status !== 201) {
    ctx.ledger.abandoned.push({ operation: ctx.plan.index, why: `session: ${describeAnswer(answer)}` });
    return undefined;
  }
  const id = answer.body.id as string;
  ctx.ledger.sessions.push({ operation: ctx.plan.index, id, reservationId, guestId });
  return id;
}

function freshReservation(ctx: OperationContext): { reservationId: string; guestId: string; email: string } {
  const email = `chaos-${randomUUID().slice(0, 12)}@example.com`;
  const created = ctx.world.sandbox.control.createReservation({
    listingId: 'lst-seaside',
    guestEmail: email,
    balanceDue: 300,
    currency: 'USD',
  });
  ctx.ledger.reservation(ctx.plan.index, created.reservationId, created.guestId);
  return { ...created, email };
}

function newSubmission(ctx: OperationContext, sessionId: string, reservationId: string, last4: string): CardSubmission {
  const submission: CardSubmission = { operation: ctx.plan.index, sessionId, reservationId, last4, told: [], outcome: 'open' };
  ctx.ledger.cards.push(submission);
  return submission;
}

/** One card submission with its own key, through 3-D Secure when the card asks for it. */
async function submitCard(
  ctx: OperationContext,
  sessionId: string,
  reservationId: string,
  number: string,
  duplicate: boolean,
): Promise<CardSubmission> {
  const submission = newSubmission(ctx, sessionId, reservationId, number.slice(-4));
  const key = randomUUID();
  const answer = await pressUntilSettled(
    ctx,
    submission.told,
    () => ctx.balancer.send(ctx.plan.random, 'POST', `/checkout/sessions/${sessionId}/payment-method`, { body: cardBody(number), key }),
    duplicate,
  );
  submission.outcome = answer.verdict;
  if (answer.verdict !== 'landed') return submission;
  if (answer.body.status === 'requires_action') {
    submission.outcome = await authenticate(ctx, submission, (answer.body.nextAction as { redirectUrl: string }).redirectUrl);
  } else if (answer.body.status !== 'succeeded') {
    submission.outcome = await outcomeFromSession(ctx, submission);
  }
  return submission;
}

/** What a page polling the session concludes about this submission's card. */
async function outcomeFromSession(ctx: OperationContext, submission: CardSubmission): Promise<Verdict> {
  const session = await sessionOnceSettled(ctx, submission.sessionId);
  const last4 = (session?.paymentMethod as { last4?: string } | undefined)?.last4;
  const verdict: Verdict =
    !session || session.status === 'processing'
      ? 'open'
      : session.status === 'gone'
        ? 'lost'
        : session.status === 'succeeded' && last4 === submission.last4
          ? 'landed'
          : 'refused';
  submission.told.push({ said: `session ${String(session?.status)}`, verdict });
  return verdict;
}

/** The issuer's page (Authenticate), then its return to the service: opened once, or twice on two replicas. */
async function authenticate(ctx: OperationContext, submission: CardSubmission, redirectUrl: string): Promise<Verdict> {
  const pressed = await fetch(`${redirectUrl}/authenticate`, { method: 'POST', redirect: 'manual' }).catch(() => undefined);
  const returnUrl = pressed?.headers.get('location');
  if (!returnUrl) {
    ctx.ledger.abandoned.push({ operation: ctx.plan.index, why: 'the issuer page did not answer' });
    return 'open';
  }
  if (ctx.plan.duplicateReturn) ctx.ledger.countFault('duplicate_3ds_return');
  const opens = ctx.plan.duplicateReturn ? 2 : 1;
  const verdicts = await Promise.all(
    Array.from({ length: opens }, (_, index) => pause(index * 100).then(() => openReturn(ctx, submission, returnUrl))),
  );
  if (verdicts.includes('landed')) return 'landed';
  if (verdicts.every((verdict) => verdict === 'refused')) return 'refused';
  return outcomeFromSession(ctx, submission);
}

async function openReturn(ctx: OperationContext, submission: CardSubmission, returnUrl: string): Promise<Verdict> {
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt += 1) {
    const answer = await ctx.balancer.openReturn(ctx.plan.random, returnUrl);
    if (answer.status === 303 && answer.location) {
      const status = new URL(answer.location).searchParams.get('status');
      const verdict: Verdict = status === 'succeeded' ? 'landed' : status === 'failed' ? 'refused' : 'open';
      submission.told.push({ said: `3-D Secure return status=${String(status)}`, verdict });
      return verdict;
    }
    submission.told.push({ said: `3-D Secure return ${describeAnswer(answer)}`, verdict: 'open' });
    await pause(PRESS_AGAIN_MS);
  }
  return 'open';
}

/** Cards until one lands: after a refusal the guest types another card (a new key), up to `cards` in all. */
async function payByCard(
  ctx: OperationContext,
  sessionId: string,
  reservationId: string,
  firstCard: string | undefined,
  cards = 3,
): Promise<Verdict> {
  let verdict: Verdict = 'refused';
  for (let attempt = 0; attempt < cards; attempt += 1) {
    const number = attempt === 0 && firstCard ? firstCard : cardEnding(ctx.plan.random, String(5000 + ctx.cardsTyped++).padStart(4, '0'));
    const duplicate = attempt === 0 && ctx.plan.duplicateSubmission;
    if (duplicate) ctx.ledger.countFault('duplicate_submission');
    const submission = await submitCard(ctx, sessionId, reservationId, number, duplicate);
    verdict = submission.outcome;
    const refusal = submission.told[submission.told.length - 1]?.said ?? '';
    if (verdict !== 'refused' || /already_paid|invalid_state|hold_expired/.test(refusal)) return verdict;
  }
  return verdict;
}

async function addExtras(ctx: OperationContext, sessionId: string, reservationId: string): Promise<void> {
  const extra = ctx.plan.random.pick(EXTRAS);
  const request = {
    operation: ctx.plan.index,
    sessionId,
    reservationId,
    title: extra.title,
    told: [] as Told[],
    outcome: 'open' as Verdict,
  };
  ctx.ledger.extras.push(request);
  const key = randomUUID();
  const duplicate = ctx.plan.duplicateSubmission;
  if (duplicate) ctx.ledger.countFault('duplicate_submission');
  const answer = await pressUntilSettled(
    ctx,
    request.told,
    () =>
      ctx.balancer.send(ctx.plan.random, 'POST', `/checkout/sessions/${sessionId}/extras`, {
        body: { items: [{ code: extra.code }] },
        key,
      }),
    duplicate,
  );
  request.outcome = answer.verdict;
}

async function checkout(ctx: OperationContext, firstCard?: string): Promise<void> {
  const { reservationId, guestId, email } = freshReservation(ctx);
  let sessionId = await openSession(ctx, reservationId, email, guestId);
  if (!sessionId) return;
  let verdict = await payByCard(ctx, sessionId, reservationId, firstCard);
  if (verdict === 'lost') {
    // Redis lost the session: the guest opens the checkout again and pays with another card.
    sessionId = await openSession(ctx, reservationId, email, guestId);
    if (!sessionId) return;
    verdict = await payByCard(ctx, sessionId, reservationId, undefined);
  }
  if (verdict === 'landed' && ctx.plan.extras) await addExtras(ctx, sessionId, reservationId);
}

/** A card whose charge the platform then fails, and the replacement the session offers for it. */
async function replacementCard(ctx: OperationContext): Promise<void> {
  const { reservationId, guestId, email } = freshReservation(ctx);
  const sessionId = await openSession(ctx, reservationId, email, guestId);
  if (!sessionId) return;
  if ((await payByCard(ctx, sessionId, reservationId, INSUFFICIENT_FUNDS_CARD, 1)) !== 'landed') return;
  const failed = await waitFor(
    async () => (await read(ctx, 'GET', `/checkout/sessions/${sessionId}/payment-status`)).body.state === 'failed',
    ctx.openLimitMs,
  );
  if (!failed) {
    ctx.ledger.abandoned.push({ operation: ctx.plan.index, why: 'payment-status never said failed' });
    return;
  }
  ctx.ledger.reservation(ctx.plan.index, reservationId, guestId).cardsAllowed = 2;
  await payByCard(ctx, sessionId, reservationId, undefined);
}

/** Two sessions on one reservation, each paying with its own card at once on two replicas. */
async function twoSessions(ctx: OperationContext): Promise<void> {
  const { reservationId, guestId, email } = freshReservation(ctx);
  const first = await openSession(ctx, reservationId, email, guestId);
  const second = await openSession(ctx, reservationId, email, guestId);
  if (!first || !second) return;
  ctx.ledger.countFault('two_sessions');
  await Promise.all([payByCard(ctx, first, reservationId, undefined, 1), payByCard(ctx, second, reservationId, undefined, 1)]);
}

/** Calendar → quote → booking session (a guest made or merged, a reservation held) → card. */
async function booking(ctx: OperationContext): Promise<void> {
  const stay = ctx.world.nextStay();
  const calendar = await read(ctx, 'GET', `/checkout/listings/${stay.listingId}/calendar?from=${stay.checkIn}&to=${stay.checkOut}`);
  const quote = await read(ctx, 'POST', '/checkout/quotes', {
    listingId: stay.listingId,
    checkIn: stay.checkIn,
    checkOut: stay.checkOut,
    guestsCount: 2,
  });
  if (calendar.status !== 200 || quote.status !== 201) {
    ctx.ledger.abandoned.push({ operation: ctx.plan.index, why: `calendar ${describeAnswer(calendar)}, quote ${describeAnswer(quote)}` });
    return;
  }
  const email = `chaos-${randomUUID().slice(0, 12)}@example.com`;
  const request = {
    operation: ctx.plan.index,
    email,
    told: [] as Told[],
    outcome: 'open' as Verdict,
    sessionId: undefined as string | undefined,
  };
  ctx.ledger.bookings.push(request);
  let answer: Answer & { verdict: Verdict } = { status: 0, body: {}, verdict: 'open' };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const key = randomUUID();
    const duplicate = attempt === 0 && ctx.plan.duplicateSubmission;
    if (duplicate) ctx.ledger.countFault('duplicate_submission');
    const body = { quoteId: quote.body.id, guest: { firstName: 'Chaos', lastName: 'Guest', email } };
    answer = await pressUntilSettled(
      ctx,
      request.told,
      () => ctx.balancer.send(ctx.plan.random, 'POST', '/checkout/sessions', { body, key }),
      duplicate,
    );
    if (answer.verdict !== 'refused' || answer.code === 'quote_used') break;
  }
  request.outcome = answer.verdict;
  if (answer.verdict !== 'landed') return;
  const sessionId = answer.body.id as string;
  request.sessionId = sessionId;
  const reservationId = (answer.body.booking as { reservationId: string }).reservationId;
  const guestId = (ctx.world.sandbox.control.getGuestsByEmail(email)[0]?._id as string | undefined) ?? '';
  ctx.ledger.reservation(ctx.plan.index, reservationId, guestId);
  ctx.ledger.sessions.push({ operation: ctx.plan.index, id: sessionId, reservationId, guestId });
  const verdict = await payByCard(ctx, sessionId, reservationId, undefined);
  if (verdict === 'landed' && ctx.plan.extras) await addExtras(ctx, sessionId, reservationId);
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const giveUpAt = Date.now() + timeoutMs;
  while (Date.now() < giveUpAt) {
    if (await check()) return true;
    await pause(PRESS_AGAIN_MS);
  }
  return false;
}

export async function runOperation(ctx: OperationContext): Promise<void> {
  switch (ctx.plan.kind) {
    case 'checkout':
      return checkout(ctx);
    case 'checkout_3ds':
      return checkout(ctx, THREE_DS_CARD);
    case 'booking':
      return booking(ctx);
    case 'replacement_card':
      return replacementCard(ctx);
    case 'two_sessions':
      return twoSessions(ctx);
  }
}
