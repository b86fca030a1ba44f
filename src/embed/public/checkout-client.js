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
};
/** An error answer (or no answer) from the service. `problem.code` is the stable word to switch on. */
export class CheckoutError extends Error {
    problem;
    /** Seconds the service asked to wait (`Retry-After`), when it said. */
    retryAfterSeconds;
    // Fields assigned here, not as parameter properties: the source runs as it is under Node's type stripping.
    constructor(problem, retryAfterSeconds) {
        super(problem.detail ?? `${problem.status} ${problem.code}`);
        this.name = 'CheckoutError';
        this.problem = problem;
        this.retryAfterSeconds = retryAfterSeconds;
    }
}
/** A payment due within this long of now is being charged: its outcome is worth waiting for. */
const CHARGING_WINDOW_MS = 60_000;
/** The error table's "press again with the same key after Retry-After" answers of a write. */
const RETRYABLE_WRITE_CODES = new Set(['outcome_pending', 'idempotency_in_progress', 'step_in_progress', 'store_unavailable']);
function abortableSleep(ms, signal) {
    return new Promise((resolve, reject) => {
        if (signal?.aborted)
            return reject(signal.reason);
        const timer = setTimeout(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
        }, ms);
        const onAbort = () => {
            clearTimeout(timer);
            reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
    });
}
function retryAfterOf(response) {
    const header = response.headers.get('Retry-After');
    if (header === null)
        return undefined;
    const seconds = Number(header);
    if (Number.isFinite(seconds))
        return Math.max(0, seconds);
    const date = Date.parse(header);
    return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}
/** A new browsing context with no way back to this page (noopener), true if the browser opened it. */
function openInNewWindow(url) {
    const opened = globalThis.open?.(url, '_blank');
    if (!opened)
        return false;
    opened.opener = null;
    return true;
}
function path(template, id) {
    return template.replace('{id}', encodeURIComponent(id));
}
export class CheckoutClient {
    baseUrl;
    fetcher;
    refreshMs;
    writeRetries;
    maxRetryWaitSeconds;
    sleep;
    now;
    constructor(options = {}) {
        this.baseUrl = (options.baseUrl ?? '').replace(/\/+$/, '');
        this.fetcher = options.fetch ?? ((input, init) => fetch(input, init));
        this.refreshMs = (options.paymentStatusRefreshSeconds ?? 10) * 1000;
        this.writeRetries = options.writeRetries ?? 2;
        this.maxRetryWaitSeconds = options.maxRetryWaitSeconds ?? 5;
        this.sleep = options.sleep ?? abortableSleep;
        this.now = options.now ?? Date.now;
    }
    /** A fresh attempt: a random Idempotency-Key. */
    newAttempt() {
        return { idempotencyKey: crypto.randomUUID() };
    }
    calendar(listingId, from, to) {
        const query = new URLSearchParams({ from, to });
        return this.read(`${path(CHECKOUT_ROUTES.calendar[1], listingId)}?${query.toString()}`);
    }
    listing(listingId) {
        return this.read(path(CHECKOUT_ROUTES.listing[1], listingId));
    }
    /** Asking again for the same stay answers the same quote (QUOTE_REUSE_SECONDS): cheap to call as the guest browses. */
    quote(request) {
        return this.call('POST', CHECKOUT_ROUTES.quote[1], request);
    }
    /** Books the quote: a held reservation and its checkout session (`session.booking`). */
    book(request, attempt = this.newAttempt()) {
        return this.write(CHECKOUT_ROUTES.startSession[1], request, attempt);
    }
    /**
     * A checkout session for a reservation made elsewhere (the email must be its guest's). With its
     * confirmation code too, the guest is looked up at checkout priority even during a flood of guesses.
     */
    startSession(request) {
        return this.call('POST', CHECKOUT_ROUTES.startSession[1], request);
    }
    session(sessionId) {
        return this.read(path(CHECKOUT_ROUTES.session[1], sessionId));
    }
    /**
     * The card (or token) for the session. Answers the session: `succeeded`, or `requires_action`
     * (then call `redirectToAuthentication`). A new card is a new attempt; the same attempt is retried
     * here, with its key, when the answer was lost or the service is still confirming it.
     */
    submitPaymentMethod(sessionId, body, attempt = this.newAttempt()) {
        return this.write(path(CHECKOUT_ROUTES.submitPaymentMethod[1], sessionId), body, attempt);
    }
    /**
     * Opens the issuer's page for a charge awaiting the guest (`requires_authentication`, or
     * `session.charge.next: authenticate`) in a new window, so the site's page stays and
     * `watchPaymentStatus` keeps polling. Call it from the guest's click: browsers block new windows
     * without one. False when there is no page or the window was refused; then offer a link with
     * target=_blank.
     */
    openAuthentication(answer, open) {
        const url = answer.nextAction?.redirectUrl ?? answer.redirectUrl;
        if (!url)
            return false;
        return (open ?? openInNewWindow)(url);
    }
    /**
     * Sends the browser to the issuer's 3-D Secure page when the card itself needs it (the session's
     * `requires_action`): the issuer sends the guest back to the site's return page. For a charge's
     * authentication use `openAuthentication`.
     */
    redirectToAuthentication(answer, navigate) {
        const url = answer.nextAction?.redirectUrl;
        if (!url)
            return false;
        (navigate ?? ((target) => globalThis.location.assign(target)))(url);
        return true;
    }
    /** Polls the session (at most once a second) until `done` says so, e.g. until `booking.status` is `confirmed`. */
    async waitForSession(sessionId, done, options = {}) {
        const deadline = this.now() + (options.timeoutMs ?? 30_000);
        for (;;) {
            const session = await this.session(sessionId);
            if (done(session) || this.now() >= deadline)
                return session;
            await this.sleep(1000, options.signal);
        }
    }
    paymentStatus(sessionId) {
        return this.read(path(CHECKOUT_ROUTES.paymentStatus[1], sessionId));
    }
    /**
     * Whether an answer is worth polling further: only while the money side is still moving, or a charge
     * waits for the guest's authentication (opened in another tab, its outcome shows here).
     */
    isSettled(status) {
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
    async watchPaymentStatus(sessionId, options = {}) {
        const deadline = this.now() + (options.timeoutMs ?? 120_000);
        let last;
        for (;;) {
            const started = this.now();
            let waitMs = this.refreshMs;
            try {
                last = await this.paymentStatus(sessionId);
                options.onUpdate?.(last);
                if (this.isSettled(last))
                    return last;
            }
            catch (error) {
                if (!(error instanceof CheckoutError) || error.retryAfterSeconds === undefined)
                    throw error;
                waitMs = Math.max(waitMs, error.retryAfterSeconds * 1000);
            }
            if (Math.max(this.now(), started + waitMs) > deadline) {
                if (last)
                    return last;
                throw new CheckoutError({ status: 0, code: 'timeout', detail: 'The payment status could not be read in time.' });
            }
            // A timer may fire a few ms early by the clock (it counts from the event loop's cached time): wait out the rest.
            for (let left = started + waitMs - this.now(); left > 0; left = started + waitMs - this.now())
                await this.sleep(left, options.signal);
        }
    }
    /** The extras a guest may add (the service's catalogue; amounts in the reservation's currency). */
    async extrasCatalogue() {
        return (await this.read(CHECKOUT_ROUTES.extrasCatalogue[1])).items;
    }
    addExtras(sessionId, items, attempt = this.newAttempt()) {
        return this.write(path(CHECKOUT_ROUTES.addExtras[1], sessionId), { items }, attempt);
    }
    read(target) {
        return this.call('GET', target);
    }
    /**
     * One attempt, retried with the same key only when its answer was lost, or the service said when
     * to press again and that is soon (see maxRetryWaitSeconds).
     */
    async write(target, body, attempt) {
        for (let retry = 0;; retry++) {
            try {
                return await this.call('POST', target, body, attempt.idempotencyKey);
            }
            catch (error) {
                const seconds = error instanceof CheckoutError ? this.pressAgainIn(error) : 1;
                if (retry >= this.writeRetries || seconds === undefined)
                    throw error;
                await this.sleep(seconds * 1000);
            }
        }
    }
    /** The seconds after which this answer's own write is pressed again here; undefined: the caller decides. */
    pressAgainIn(error) {
        const seconds = error.retryAfterSeconds;
        if (!RETRYABLE_WRITE_CODES.has(error.problem.code) || seconds === undefined)
            return undefined;
        return seconds <= this.maxRetryWaitSeconds ? seconds : undefined;
    }
    async call(method, target, body, idempotencyKey) {
        const headers = { Accept: 'application/json' };
        if (body !== undefined)
            headers['Content-Type'] = 'application/json';
        if (idempotencyKey)
            headers['Idempotency-Key'] = idempotencyKey;
        const response = await this.fetcher(`${this.baseUrl}${target}`, {
            method,
            headers,
            body: body === undefined ? undefined : JSON.stringify(body),
        });
        const data = await response.json().catch(() => undefined);
        if (response.ok)
            return data;
        const problem = (data && typeof data === 'object' ? data : {});
        throw new CheckoutError({ ...problem, status: response.status, code: problem.code ?? 'http_error' }, retryAfterOf(response));
    }
}
