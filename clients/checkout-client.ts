/*
 * A small, dependency-free client of the booking checkout API for the browser or any runtime with
 * `fetch`. Its shapes come from docs/openapi.json (openapi-types.ts); `npm run client` regenerates
 * them and compiles this file for clients/dist/ and the demo page. The source runs under Node's
 * type stripping. Card data passes through to the service only, never stored or logged.
 */
import type { components } from './openapi-types.js';

/** Every route this client calls: method and OpenAPI path (a test checks each is in docs/openapi.json). */
export const CHECKOUT_ROUTES = {
  calendar: ['get', '/checkout/listings/{id}/calendar'],
  listing: ['get', '/checkout/listings/{id}'],
  quote: ['post', '/checkout/quotes'],
  startSession: ['post', '/checkout/sessions'],
  session: ['get', '/checkout/sessions/{id}'],
  submitPaymentMethod: ['post', '/checkout/sessions/{id}/payment-method'],
  paymentStatus: ['get', '/checkout/sessions/{id}/payment-status'],
  extrasCatalogue: ['get', '/checkout/extras'],
  addExtras: ['post', '/checkout/sessions/{id}/extras'],
} as const;

type Schemas = components['schemas'];

export type FieldError = Schemas['FieldErrorDto'];

/** RFC 9457 problem details, as every error answer carries them; `timeout` and `http_error` are this client's own. */
export type Problem = Partial<Omit<Schemas['ProblemDetailsDto'], 'status' | 'code'>> & {
  status: number;
  code: Schemas['ProblemDetailsDto']['code'] | 'http_error' | 'timeout';
};

export type CalendarDay = Schemas['CalendarDayResponse'];
export type Calendar = Schemas['CalendarResponse'];
export type ListingSummary = Schemas['ListingSummary'];
export type QuoteRequest = Schemas['QuoteRequestDto'];
export type RatePlan = Schemas['RatePlanResponse'];
export type Quote = Schemas['QuoteResponse'];
export type Guest = Schemas['BookingGuestDto'];
export type Booking = Schemas['SessionBookingView'];
export type Session = Schemas['CheckoutSessionResponse'];
export type SessionStatus = Session['status'];

export interface CardDetails {
  card: Schemas['CardDto'];
  billing_details: Schemas['BillingDetailsDto'];
}

/** The card, or the platform's token made by its own tokenization form. */
export type PaymentMethodBody = CardDetails | { token: string };

export type PaymentStatus = Schemas['PaymentDiagnosisResponse'];
export type PaymentState = PaymentStatus['state'];
export type Extra = Schemas['CatalogueExtraView'];
export type AddedExtras = Schemas['AddedExtrasView'];

/** An error answer (or no answer) from the service. `problem.code` is the stable word to switch on. */
export class CheckoutError extends Error {
  readonly problem: Problem;
  /** Seconds the service asked to wait (`Retry-After`), when it said. */
  readonly retryAfterSeconds?: number;

  // Fields assigned here, not as parameter properties: the source runs as it is under Node's type stripping.
  constructor(problem: Problem, retryAfterSeconds?: number) {
    super(problem.detail ?? `${problem.status} ${problem.code}`);
    this.name = 'CheckoutError';
    this.problem = problem;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * One attempt at a write: its `Idempotency-Key`. A new attempt (a new card, a new booking) gets a
 * new one; pass the same attempt again only to retry that very request after a lost answer.
 */
export interface Attempt {
  readonly idempotencyKey: string;
}

export interface CheckoutClientOptions {
  /** The service's address, e.g. https://checkout.example.com; '' (default) = the page's own origin. */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** The service's PAYMENT_STATUS_REFRESH_SECONDS (default 10): payment-status is read at most this often. */
  paymentStatusRefreshSeconds?: number;
  /**
   * Retries of one write attempt, same key, after a lost answer (after a second) or an answer that
   * says to press again after its Retry-After (503 outcome_pending, 409 idempotency_in_progress, 409
   * step_in_progress, 503 store_unavailable), default 2. Such an answer is retried only after the
   * wait it names, and only when that is at most `maxRetryWaitSeconds`.
   */
  writeRetries?: number;
  /**
   * The longest Retry-After a write waits out itself (default 5 s). A longer one (the service holds
   * payments for up to WRITE_SETTLE_SECONDS after its shared state was lost), or none, is thrown at
   * once as a CheckoutError with `retryAfterSeconds`: tell the guest when to press again, then send
   * the same attempt.
   */
  maxRetryWaitSeconds?: number;
  /** Waits between polls and retries (tests may shorten nothing: the bounds above are kept). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
}

export interface WatchOptions {
  /** Called with each answer read, final or not. */
  onUpdate?: (status: PaymentStatus) => void;
  signal?: AbortSignal;
  /** Give up after this long and resolve the last answer (default 120 000 ms). */
  timeoutMs?: number;
}

/** A payment due within this long of now is being charged: its outcome is worth waiting for. */
const CHARGING_WINDOW_MS = 60_000;
/** The error table's "press again with the same key after Retry-After" answers of a write. */
const RETRYABLE_WRITE_CODES = new Set(['outcome_pending', 'idempotency_in_progress', 'step_in_progress', 'store_unavailable']);

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function retryAfterOf(response: Response): number | undefined {
  const header = response.headers.get('Retry-After');
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** A new browsing context with no way back to this page (noopener), true if the browser opened it. */
function openInNewWindow(url: string): boolean {
  const opened = (globalThis as unknown as { open?: (url: string, target: string) => { opener: unknown } | null }).open?.(url, '_blank');
  if (!opened) return false;
  opened.opener = null;
  return true;
}

function path(template: string, id: string): string {
  return template.replace('{id}', encodeURIComponent(id));
}

export class CheckoutClient {
  private readonly baseUrl: string;
  private readonly fetcher: typeof fetch;
  private readonly refreshMs: number;
  private readonly writeRetries: number;
  private readonly maxRetryWaitSeconds: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly now: () => number;

  constructor(options: CheckoutClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? '').replace(/\/+$/, '');
    this.fetcher = options.fetch ?? ((input, init) => fetch(input, init));
    this.refreshMs = (options.paymentStatusRefreshSeconds ?? 10) * 1000;
    this.writeRetries = options.writeRetries ?? 2;
    this.maxRetryWaitSeconds = options.maxRetryWaitSeconds ?? 5;
    this.sleep = options.sleep ?? abortableSleep;
    this.now = options.now ?? Date.now;
  }

  /** A fresh attempt: a random Idempotency-Key. */
  newAttempt(): Attempt {
    return { idempotencyKey: crypto.randomUUID() };
  }

  calendar(listingId: string, from: string, to: string): Promise<Calendar> {
    const query = new URLSearchParams({ from, to });
    return this.read(`${path(CHECKOUT_ROUTES.calendar[1], listingId)}?${query.toString()}`);
  }

  listing(listingId: string): Promise<ListingSummary> {
    return this.read(path(CHECKOUT_ROUTES.listing[1], listingId));
  }

  /** Asking again for the same stay answers the same quote (QUOTE_REUSE_SECONDS): cheap to call as the guest browses. */
  quote(request: QuoteRequest): Promise<Quote> {
    return this.call('POST', CHECKOUT_ROUTES.quote[1], request);
  }

  /** Books the quote: a held reservation and its checkout session (`session.booking`). */
  book(request: { quoteId: string; ratePlanId?: string; guest: Guest }, attempt: Attempt = this.newAttempt()): Promise<Session> {
    return this.write(CHECKOUT_ROUTES.startSession[1], request, attempt);
  }

  /**
   * A checkout session for a reservation made elsewhere (the email must be its guest's). With its
   * confirmation code too, the guest is looked up at checkout priority even during a flood of guesses.
   */
  startSession(request: { reservationId: string; email: string; confirmationCode?: string }): Promise<Session> {
    return this.call('POST', CHECKOUT_ROUTES.startSession[1], request);
  }

  session(sessionId: string): Promise<Session> {
    return this.read(path(CHECKOUT_ROUTES.session[1], sessionId));
  }

  /**
   * The card (or token) for the session. Answers the session: `succeeded`, or `requires_action`
   * (then call `redirectToAuthentication`). A new card is a new attempt; the same attempt is retried
   * here, with its key, when the answer was lost or the service is still confirming it.
   */
  submitPaymentMethod(sessionId: string, body: PaymentMethodBody, attempt: Attempt = this.newAttempt()): Promise<Session> {
    return this.write(path(CHECKOUT_ROUTES.submitPaymentMethod[1], sessionId), body, attempt);
  }

  /**
   * Opens the issuer's page for a charge awaiting the guest (`requires_authentication`, or
   * `session.charge.next: authenticate`) in a new window, so the site's page stays and
   * `watchPaymentStatus` keeps polling. Call it from the guest's click: browsers block new windows
   * without one. False when there is no page or the window was refused; then offer a link with
   * target=_blank.
   */
  openAuthentication(answer: { nextAction?: { redirectUrl: string }; redirectUrl?: string }, open?: (url: string) => boolean): boolean {
    const url = answer.nextAction?.redirectUrl ?? answer.redirectUrl;
    if (!url) return false;
    return (open ?? openInNewWindow)(url);
  }

  /**
   * Sends the browser to the issuer's 3-D Secure page when the card itself needs it (the session's
   * `requires_action`): the issuer sends the guest back to the site's return page. For a charge's
   * authentication use `openAuthentication`.
   */
  redirectToAuthentication(answer: { nextAction?: { redirectUrl: string } }, navigate?: (url: string) => void): boolean {
    const url = answer.nextAction?.redirectUrl;
    if (!url) return false;
    (navigate ?? ((target: string) => (globalThis as unknown as { location: { assign(to: string): void } }).location.assign(target)))(url);
    return true;
  }

  /** Polls the session (at most once a second) until `done` says so, e.g. until `booking.status` is `confirmed`. */
  async waitForSession(
    sessionId: string,
    done: (session: Session) => boolean,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<Session> {
    const deadline = this.now() + (options.timeoutMs ?? 30_000);
    for (;;) {
      const session = await this.session(sessionId);
      if (done(session) || this.now() >= deadline) return session;
      await this.sleep(1000, options.signal);
    }
  }

  paymentStatus(sessionId: string): Promise<PaymentStatus> {
    return this.read(path(CHECKOUT_ROUTES.paymentStatus[1], sessionId));
  }

  /**
   * Whether an answer is worth polling further: only while the money side is still moving, or a charge
   * waits for the guest's authentication (opened in another tab, its outcome shows here).
   */
  isSettled(status: PaymentStatus): boolean {
    switch (status.state) {
      case 'payment_method_attached':
      case 'requires_authentication':
        return false;
      case 'scheduled':
        return !status.nextPayment || Date.parse(status.nextPayment.dueAt) - this.now() > CHARGING_WINDOW_MS;
      default:
        return true;
    }
  }

  /**
   * Reads payment-status until it is settled (paid, a future schedule, a balance the host collects, failed,
   * missing; it keeps reading while a charge waits for the guest's authentication), at most once per PAYMENT_STATUS_REFRESH_SECONDS, waiting longer when a 429 or 503 says
   * `Retry-After`. Resolves the last answer read.
   */
  async watchPaymentStatus(sessionId: string, options: WatchOptions = {}): Promise<PaymentStatus> {
    const deadline = this.now() + (options.timeoutMs ?? 120_000);
    let last: PaymentStatus | undefined;
    for (;;) {
      const started = this.now();
      let waitMs = this.refreshMs;
      try {
        last = await this.paymentStatus(sessionId);
        options.onUpdate?.(last);
        if (this.isSettled(last)) return last;
      } catch (error) {
        if (!(error instanceof CheckoutError) || error.retryAfterSeconds === undefined) throw error;
        waitMs = Math.max(waitMs, error.retryAfterSeconds * 1000);
      }
      if (Math.max(this.now(), started + waitMs) > deadline) {
        if (last) return last;
        throw new CheckoutError({ status: 0, code: 'timeout', detail: 'The payment status could not be read in time.' });
      }
      // A timer may fire a few ms early by the clock (it counts from the event loop's cached time): wait out the rest.
      for (let left = started + waitMs - this.now(); left > 0; left = started + waitMs - this.now()) await this.sleep(left, options.signal);
    }
  }

  /** The extras a guest may add (the service's catalogue; amounts in the reservation's currency). */
  async extrasCatalogue(): Promise<Extra[]> {
    return (await this.read<{ items: Extra[] }>(CHECKOUT_ROUTES.extrasCatalogue[1])).items;
  }

  addExtras(sessionId: string, items: { code: string; quantity?: number }[], attempt: Attempt = this.newAttempt()): Promise<AddedExtras> {
    return this.write(path(CHECKOUT_ROUTES.addExtras[1], sessionId), { items }, attempt);
  }

  private read<T>(target: string): Promise<T> {
    return this.call('GET', target);
  }

  /**
   * One attempt, retried with the same key only when its answer was lost, or the service said when
   * to press again and that is soon (see maxRetryWaitSeconds).
   */
  private async write<T>(target: string, body: unknown, attempt: Attempt): Promise<T> {
    for (let retry = 0; ; retry++) {
      try {
        return await this.call<T>('POST', target, body, attempt.idempotencyKey);
      } catch (error) {
        const seconds = error instanceof CheckoutError ? this.pressAgainIn(error) : 1;
        if (retry >= this.writeRetries || seconds === undefined) throw error;
        await this.sleep(seconds * 1000);
      }
    }
  }

  /** The seconds after which this answer's own write is pressed again here; undefined: the caller decides. */
  private pressAgainIn(error: CheckoutError): number | undefined {
    const seconds = error.retryAfterSeconds;
    if (!RETRYABLE_WRITE_CODES.has(error.problem.code) || seconds === undefined) return undefined;
    return seconds <= this.maxRetryWaitSeconds ? seconds : undefined;
  }

  private async call<T>(method: 'GET' | 'POST', target: string, body?: unknown, idempotencyKey?: string): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    const response = await this.fetcher(`${this.baseUrl}${target}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data: unknown = await response.json().catch(() => undefined);
    if (response.ok) return data as T;
    const problem = (data && typeof data === 'object' ? data : {}) as Partial<Problem>;
    throw new CheckoutError({ ...problem, status: response.status, code: problem.code ?? 'http_error' }, retryAfterOf(response));
  }
}
