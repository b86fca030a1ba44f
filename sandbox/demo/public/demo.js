// Compiled from browser/demo.ts by `npm run browser`: edit that file, then run it again.

// The reference integration of the checkout API: served as plain browser JavaScript, compiled from
// browser/demo.ts. Every call to the service goes through the typed client (clients/checkout-client.ts,
// compiled to /demo/checkout-client.js); only /demo/* (fixtures, fresh reservations) is the sandbox's own.
import { CheckoutClient, CheckoutError } from './checkout-client.js';
/** An element of index.html by its id: the page has every id this code names. */
const $ = (id) => document.getElementById(id);
const DAY_MS = 24 * 3600 * 1000;
const CALENDAR_DAYS = 42;
const state = {
    mode: 'book',
    fixtures: null,
    listingTitle: '',
    checkIn: null,
    checkOut: null,
    quote: null,
    session: null,
    status: null,
    booking: null,
    extras: [],
    watch: null,
};
// Money and days are written one way everywhere on the page (and as the service words its messages).
const MONEY_LOCALE = 'en';
const DAY_LOCALE = 'en-GB';
let client = new CheckoutClient();
function setProgress(step) {
    const order = ['start', 'guest', 'card', 'done'];
    for (const item of $('progress').children) {
        const index = order.indexOf(item.dataset.step);
        item.classList.toggle('active', item.dataset.step === step);
        item.classList.toggle('complete', index < order.indexOf(step));
    }
}
function show(section) {
    for (const id of ['step-stay', 'step-guest', 'step-session', 'step-card', 'step-done'])
        $(id).hidden = id !== section;
}
/** 262.5 GBP → "£262.50": the currency's symbol and its minor units, never rounded away. */
function money(amount, currency) {
    return new Intl.NumberFormat(MONEY_LOCALE, { style: 'currency', currency }).format(amount);
}
/** A calendar cell's price: whole amounts without the ".00" to fit the cell, never rounded. */
function cellPrice(amount, currency) {
    const whole = Number.isInteger(amount);
    return new Intl.NumberFormat(MONEY_LOCALE, {
        style: 'currency',
        currency,
        minimumFractionDigits: whole ? 0 : 2,
        maximumFractionDigits: 2,
    }).format(amount);
}
/** 2031-07-14 → "Mon 14 Jul 2031" (calendar dates are dates, not instants: formatted in UTC; built from parts so every browser writes it alike). */
function dateText(date, withYear = true) {
    const parts = new Intl.DateTimeFormat(DAY_LOCALE, {
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        timeZone: 'UTC',
    }).formatToParts(new Date(`${date.slice(0, 10)}T00:00:00Z`));
    const part = (type) => parts.find((item) => item.type === type)?.value ?? '';
    return [part('weekday'), part('day'), part('month'), withYear ? part('year') : ''].filter(Boolean).join(' ');
}
/** "December 2026", the heading of a month in the calendar grid. */
function monthText(date) {
    return new Intl.DateTimeFormat(DAY_LOCALE, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${date.slice(0, 10)}T00:00:00Z`));
}
function isoDay(offsetDays) {
    return new Date(Date.now() + offsetDays * DAY_MS).toISOString().slice(0, 10);
}
function nightsBetween(checkIn, checkOut) {
    return Math.round((Date.parse(checkOut) - Date.parse(checkIn)) / DAY_MS);
}
function clearFieldErrors() {
    for (const element of document.querySelectorAll('.field-error'))
        element.textContent = '';
    for (const input of document.querySelectorAll('[aria-invalid]'))
        input.removeAttribute('aria-invalid');
}
/** The session or the quote a step works on: the page shows that step only once it was read. */
function known(value, what) {
    if (value === null)
        throw new Error(`no ${what} yet`);
    return value;
}
/** Shows a problem's detail (a CheckoutError from the client), and each field error next to its field. */
function showProblem(error, generalTarget) {
    // A CheckoutError carries what the service said; a failure of the network or of this page says only its message.
    const problem = error instanceof CheckoutError ? error.problem : {};
    const unplaced = [];
    for (const fieldError of problem.errors || []) {
        const target = document.querySelector(`.field-error[data-for="${fieldError.field}"]`);
        const input = document.querySelector(`[name="${fieldError.field}"]`);
        if (target)
            target.textContent = fieldError.message;
        else
            unplaced.push(fieldError.message);
        if (input)
            input.setAttribute('aria-invalid', 'true');
    }
    $(generalTarget).textContent = [problem.detail || (error instanceof Error ? error.message : String(error)), ...unplaced].join(' ');
}
/**
 * The stay being paid for, kept per session so the page can say it again after the issuer's page.
 * The hold is said only while paying: once the card is on file the dates are the guest's.
 */
function rememberStay(sessionId, text, hold = '') {
    sessionStorage.setItem(`demo-stay:${sessionId}`, text);
    $('paying-for').textContent = hold ? `${text} ${hold}` : text;
    $('done-stay').textContent = text;
}
function recalledStay(sessionId) {
    return sessionStorage.getItem(`demo-stay:${sessionId}`) || '';
}
// ---------- start: fixtures, modes ----------
async function loadFixtures() {
    const answer = await fetch('/demo/fixtures', { headers: { Accept: 'application/json' } });
    const fixtures = (await answer.json());
    state.fixtures = fixtures;
    client = new CheckoutClient({ paymentStatusRefreshSeconds: fixtures.paymentStatusRefreshSeconds });
    const listing = $('listing');
    for (const item of fixtures.listings)
        listing.add(new Option(`${item.listingId} (${item.currency}, ${item.note})`, item.listingId));
    listing.addEventListener('change', () => void loadCalendar().catch((error) => showProblem(error, 'quote-error')));
    const select = $('reservation');
    for (const reservation of fixtures.reservations) {
        const label = `${reservation.reservationId} — ${reservation.guestEmail} (${reservation.usedUp ? 'used: a card is on it; pick a new one' : reservation.purpose})`;
        const option = new Option(label, reservation.reservationId);
        option.dataset.email = reservation.guestEmail;
        option.disabled = reservation.usedUp;
        select.add(option);
    }
    select.add(new Option('A new demo reservation (fresh, unpaid)', 'new'));
    select.addEventListener('change', () => {
        $('email').value = select.selectedOptions[0].dataset.email || '';
        $('confirmation-code').value = '';
    });
    select.value = 'new';
    for (const card of fixtures.cards) {
        const item = document.createElement('li');
        const code = document.createElement('code');
        code.textContent = card.number;
        code.title = 'Use this card';
        code.addEventListener('click', () => {
            $('number').value = card.number;
        });
        item.append(code, ` — ${card.description}`);
        $('test-cards').append(item);
    }
    state.extras = await client.extrasCatalogue().catch(() => []);
}
function setMode(mode) {
    state.mode = mode;
    for (const [id, value] of [
        ['mode-book', 'book'],
        ['mode-pay', 'pay'],
    ]) {
        $(id).classList.toggle('active', mode === value);
        $(id).setAttribute('aria-pressed', String(mode === value));
    }
    setProgress('start');
    show(mode === 'book' ? 'step-stay' : 'step-session');
}
// ---------- booking: calendar, quote, guest ----------
async function loadCalendar() {
    state.checkIn = null;
    state.checkOut = null;
    $('quote').hidden = true;
    $('get-quote').disabled = true;
    $('quote-error').textContent = '';
    const listingId = $('listing').value;
    const [calendar, summary] = await Promise.all([
        client.calendar(listingId, isoDay(1), isoDay(CALENDAR_DAYS)),
        client.listing(listingId).catch(() => null),
    ]);
    state.listingTitle = summary ? [summary.title, summary.city].filter(Boolean).join(', ') : listingId;
    $('listing-title').textContent = state.listingTitle;
    const grid = $('calendar');
    grid.replaceChildren();
    const currency = calendar.currency || 'USD';
    for (const [index, day] of calendar.days.entries()) {
        // Each month starts on its own row under its name, so a 14 after a 31 is never a guess.
        if (index === 0 || day.date.slice(8, 10) === '01') {
            const heading = document.createElement('span');
            heading.className = 'month';
            heading.textContent = monthText(day.date);
            grid.append(heading);
            for (const name of ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']) {
                const head = document.createElement('span');
                head.className = 'weekday';
                head.textContent = name;
                grid.append(head);
            }
            const weekday = new Date(`${day.date}T00:00:00Z`).getUTCDay();
            for (let blank = 0; blank < (weekday + 6) % 7; blank++)
                grid.append(document.createElement('span'));
        }
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'day';
        button.dataset.date = day.date;
        // A taken day may still be a departure day (its night is not part of the stay).
        button.classList.toggle('taken', !day.available);
        button.title = day.available
            ? `${dateText(day.date)}: ${day.price === null ? '' : money(day.price, currency)}, at least ${day.minNights} nights`
            : `${dateText(day.date)}: taken`;
        const number = document.createElement('span');
        number.textContent = String(Number(day.date.slice(8, 10)));
        const price = document.createElement('small');
        price.textContent = day.available && day.price !== null ? cellPrice(day.price, currency) : '—';
        button.append(number, price);
        button.addEventListener('click', () => pickDay(day, calendar.days));
        grid.append(button);
    }
    paintSelection();
}
/** The arrival, then the departure: every night between must be free, the departure day itself need not be. */
function pickDay(day, days) {
    const { checkIn } = state;
    const nightsFree = checkIn && days.every((other) => other.date < checkIn || other.date >= day.date || other.available);
    // Past a taken night, a click starts a new stay instead.
    const asDeparture = checkIn && !state.checkOut && day.date > checkIn && nightsFree;
    if (!asDeparture) {
        if (!day.available || !day.checkInAllowed) {
            $('calendar-hint').textContent = `${dateText(day.date)} is not available for arrival. Pick another day.`;
            return;
        }
        state.checkIn = day.date;
        state.checkOut = null;
        $('calendar-hint').textContent = `Arrival ${dateText(day.date)} (at least ${day.minNights} nights). Now pick the departure day.`;
    }
    else {
        state.checkOut = day.date;
        $('calendar-hint').textContent = `${dateText(checkIn)} → ${dateText(day.date)}, ${nightsBetween(checkIn, day.date)} nights.`;
    }
    $('get-quote').disabled = !(state.checkIn && state.checkOut);
    $('quote').hidden = true;
    paintSelection();
}
function paintSelection() {
    const { checkIn, checkOut } = state;
    for (const button of $('calendar').querySelectorAll('.day')) {
        const date = button.dataset.date;
        const inStay = checkIn && checkOut && date >= checkIn && date <= checkOut;
        button.classList.toggle('chosen', date === checkIn || date === checkOut || Boolean(inStay));
        button.setAttribute('aria-pressed', String(date === checkIn || date === checkOut));
    }
}
async function getQuote() {
    const { checkIn, checkOut } = state;
    // The button is enabled only once both days are picked.
    if (!checkIn || !checkOut)
        return;
    $('quote-error').textContent = '';
    $('get-quote').disabled = true;
    try {
        const coupon = $('coupon').value.trim();
        const quote = await client.quote({
            listingId: $('listing').value,
            checkIn,
            checkOut,
            guestsCount: Number($('guests').value),
            ...(coupon ? { coupon } : {}),
        });
        state.quote = quote;
        $('quote-stay').textContent =
            `${state.listingTitle} · ${dateText(quote.checkIn)} → ${dateText(quote.checkOut)} · ${quote.nights} nights · ${quote.guestsCount} guests`;
        const plans = $('rate-plans');
        plans.replaceChildren();
        quote.ratePlans.forEach((plan, index) => {
            const label = document.createElement('label');
            label.className = 'plan';
            const radio = document.createElement('input');
            radio.type = 'radio';
            radio.name = 'rate-plan';
            radio.value = plan.id;
            radio.checked = index === 0;
            const text = document.createElement('span');
            const { accommodation, cleaning, fees, taxes, discount } = plan.breakdown;
            const parts = [
                `${quote.nights} nights ${money(accommodation, quote.currency)}`,
                discount ? `discount −${money(discount, quote.currency)}` : '',
                `cleaning ${money(cleaning, quote.currency)}`,
                fees ? `fees ${money(fees, quote.currency)}` : '',
                `taxes ${money(taxes, quote.currency)}`,
            ].filter(Boolean);
            const strong = document.createElement('strong');
            strong.textContent = `${plan.name}: ${money(plan.total, quote.currency)}`;
            const small = document.createElement('small');
            small.textContent = parts.join(' · ');
            text.append(strong, small);
            label.append(radio, text);
            plans.append(label);
        });
        $('quote').hidden = false;
    }
    catch (error) {
        showProblem(error, 'quote-error');
    }
    finally {
        $('get-quote').disabled = !(state.checkIn && state.checkOut);
    }
}
function toGuest() {
    const email = $('guest-email');
    if (!email.value)
        email.value = `demo-${crypto.randomUUID().slice(0, 8)}@example.com`;
    setProgress('guest');
    show('step-guest');
}
async function book(event) {
    event.preventDefault();
    clearFieldErrors();
    $('book-error').textContent = '';
    $('book').disabled = true;
    try {
        const phone = $('phone').value.trim();
        const guest = {
            firstName: $('first-name').value.trim(),
            lastName: $('last-name').value.trim(),
            email: $('guest-email').value.trim(),
            ...(phone ? { phone } : {}),
        };
        const ratePlanId = document.querySelector('input[name="rate-plan"]:checked')?.value;
        const quote = known(state.quote, 'quote');
        // One attempt per press: the client retries it with the same key only if the answer is lost.
        const session = await client.book({ quoteId: quote.id, ratePlanId, guest });
        state.session = session;
        const plan = quote.ratePlans.find((item) => item.id === ratePlanId) || quote.ratePlans[0];
        const held = session.booking?.holdExpiresAt
            ? `The dates are held for you until ${new Date(session.booking.holdExpiresAt).toLocaleTimeString(DAY_LOCALE, { hour: '2-digit', minute: '2-digit' })}.`
            : '';
        rememberStay(session.id, `Paying for: ${state.listingTitle}, ${dateText(quote.checkIn)} → ${dateText(quote.checkOut)} (${quote.nights} nights, ${plan.name}), reservation ${session.booking?.confirmationCode ?? session.reservationId}.`, held);
        toCard(session);
    }
    catch (error) {
        showProblem(error, 'book-error');
    }
    finally {
        $('book').disabled = false;
    }
}
// ---------- paying an existing reservation ----------
async function startCheckout() {
    $('session-error').textContent = '';
    $('start').disabled = true;
    try {
        let reservationId = $('reservation').value;
        if (reservationId === 'new') {
            const created = (await (await fetch('/demo/reservations', { method: 'POST' })).json());
            reservationId = created.reservationId;
            $('email').value = created.guestEmail;
            $('confirmation-code').value = created.confirmationCode ?? '';
        }
        const confirmationCode = $('confirmation-code').value.trim();
        const session = await client.startSession({
            reservationId,
            email: $('email').value,
            ...(confirmationCode ? { confirmationCode } : {}),
        });
        state.session = session;
        const listing = await client.listing(session.listingId).catch(() => null);
        rememberStay(session.id, `Paying for: reservation ${session.reservationId}${listing ? ` at ${[listing.title, listing.city].filter(Boolean).join(', ')}` : ''}.`);
        toCard(session);
    }
    catch (error) {
        showProblem(error, 'session-error');
    }
    finally {
        $('start').disabled = false;
    }
}
// ---------- the card ----------
function toCard(session) {
    $('amount').textContent = money(session.amount, session.currency);
    $('card-error').textContent = '';
    setProgress('card');
    show('step-card');
}
function cardBody() {
    const value = (id) => $(id).value.trim();
    return {
        card: { number: value('number').replace(/\s+/g, ''), exp_month: value('exp_month'), exp_year: value('exp_year'), cvc: value('cvc') },
        billing_details: {
            name: value('name'),
            address: { line1: value('line1'), city: value('city'), postal_code: value('postal_code'), country: value('country').toUpperCase() },
        },
    };
}
async function pay(event) {
    event.preventDefault();
    clearFieldErrors();
    $('card-error').textContent = '';
    $('pay').disabled = true;
    try {
        // A new card is a new attempt (a new Idempotency-Key); the client reuses it only to retry this one.
        const session = await client.submitPaymentMethod(known(state.session, 'session').id, cardBody(), client.newAttempt());
        if (session.status === 'requires_action' && client.redirectToAuthentication(session))
            return;
        history.replaceState(null, '', `/demo/reference?session=${encodeURIComponent(session.id)}&status=${session.status}`);
        await showResult(session.id);
    }
    catch (error) {
        showProblem(error, 'card-error');
    }
    finally {
        $('pay').disabled = false;
    }
}
// ---------- the result: the session, then the truth about the money ----------
const STATUS_WORDS = {
    SUCCEEDED: 'paid',
    PENDING: 'scheduled',
    PENDING_AUTH: 'waiting for your bank',
    FAILED: 'failed',
};
function renderSchedule(status) {
    const list = $('schedule');
    list.replaceChildren();
    for (const payment of status.payments || []) {
        const item = document.createElement('li');
        const when = payment.paidAt ? `on ${dateText(payment.paidAt)}` : payment.dueAt ? `due ${dateText(payment.dueAt)}` : '';
        item.className = `payment ${String(payment.status).toLowerCase()}`;
        item.textContent =
            `${money(payment.amount, payment.currency)} — ${STATUS_WORDS[payment.status] || payment.status.toLowerCase()} ${when}`.trim();
        list.append(item);
    }
    $('schedule-box').hidden = list.children.length === 0;
}
/** The payments still to be charged on the next payment's day (two instalments may fall due at once). */
function dueTogether(status) {
    if (!status.nextPayment)
        return [];
    const day = status.nextPayment.dueAt.slice(0, 10);
    return (status.payments || []).filter((payment) => payment.status === 'PENDING' && (payment.dueAt || '').slice(0, 10) <= day);
}
/** "2 payments, €319.00 and €319.00 (€638.00 in all)": each one named, and their sum (as the service words it). */
function paymentsTogether(payments, currency) {
    const each = new Intl.ListFormat(MONEY_LOCALE, { type: 'conjunction' }).format(payments.map((payment) => money(payment.amount, currency)));
    const sum = Math.round(payments.reduce((total, payment) => total + payment.amount, 0) * 100) / 100;
    return `${payments.length} payments, ${each} (${money(sum, currency)} in all)`;
}
/** The money's headline: never "paid" while something is due. */
function moneyHeadline(status, card) {
    const session = known(state.session, 'session');
    const currency = status.currency || session.currency;
    const due = status.amountDue ?? 0;
    if (status.state === 'paid' && due <= 0)
        return ['paid', `Paid — ${money(status.amountPaid ?? session.amount, currency)} received`];
    if (status.state === 'paid' || status.state === 'balance_due')
        return ['due', `${money(due, currency)} still due — the host will collect it`];
    if (status.state === 'scheduled') {
        const together = dueTogether(status);
        if (together.length > 1 && status.nextPayment)
            return ['scheduled', `Card on file — ${paymentsTogether(together, currency)}, due on ${dateText(status.nextPayment.dueAt)}`];
        return [
            'scheduled',
            status.nextPayment
                ? `Card on file — next payment ${money(status.nextPayment.amount, currency)} on ${dateText(status.nextPayment.dueAt)}`
                : 'Card on file — payment scheduled',
        ];
    }
    const others = {
        requires_authentication: ['action', 'Your bank asks you to confirm the payment'],
        failed: ['failed', 'Payment failed'],
        payment_method_attached: ['pending', `Card on file (${card}) — waiting for the payment to show…`],
        missing: ['failed', 'No payment on file'],
    };
    return others[status.state] || ['pending', status.state];
}
const BOOKING_WORDS = {
    confirmed: 'Booking confirmed',
    reserved: 'Booking requested (the property confirms it)',
    expired: 'The hold expired',
    canceled: 'Booking canceled',
};
const MONEY_NEEDS = {
    failed: 'payment needed',
    missing: 'payment needed',
    requires_authentication: 'confirm the payment with your bank',
};
/**
 * The lead line is what the guest must act on: a booking the platform confirmed before its charge
 * failed reads "Booking confirmed — payment needed", never a green confirmation above a red failure.
 */
function renderLead() {
    const status = state.status;
    const booking = state.booking;
    if (!status)
        return;
    const { paymentMethod } = known(state.session, 'session');
    const card = paymentMethod ? `card ending ${paymentMethod.last4}` : 'the card';
    const [tone, words] = moneyHeadline(status, card);
    const needs = MONEY_NEEDS[status.state];
    const lead = booking?.status === 'confirmed' && needs ? `Booking confirmed — ${needs}` : words;
    $('final-status').className = `status ${tone}`;
    $('final-status').textContent = lead;
    if (booking) {
        $('confirmation').hidden = false;
        $('confirmation').className = needs ? 'confirmation quiet' : 'confirmation';
        $('confirmation').textContent = needs
            ? `Confirmation code ${booking.confirmationCode}. ${words}.`
            : `${BOOKING_WORDS[booking.status] || booking.status} — confirmation code ${booking.confirmationCode}`;
    }
}
function renderStatus(status) {
    const session = known(state.session, 'session');
    const card = session.paymentMethod ? `card ending ${session.paymentMethod.last4}` : 'the card';
    const currency = status.currency || session.currency;
    state.status = status;
    renderLead();
    // The message already says what to do (another card); the button below offers it.
    $('final-message').textContent = status.diagnosis.message;
    const authenticate = status.state === 'requires_authentication' && status.nextAction;
    $('authenticate').hidden = !authenticate;
    if (!authenticate)
        $('authenticate-note').textContent = '';
    $('retry').hidden = !(status.state === 'failed' || status.state === 'missing');
    $('diagnostics').textContent = JSON.stringify(status, null, 2);
    renderSchedule(status);
    // Extras only when the money side allows it: the card is on file and nothing failed or waits.
    const allowed = ['paid', 'scheduled', 'balance_due'].includes(status.state) && state.extras.length > 0;
    $('extras').hidden = !allowed;
    if (allowed) {
        $('extras-explain').textContent =
            `Each extra is added to this booking's bill in ${currency}. The status above then shows what is due and how it is collected: with the booking's scheduled payments on your ${card}, or by the host.`;
        if ($('extra').options.length === 0)
            $('extra').replaceChildren(...state.extras.map((extra) => new Option(`${extra.title} — ${money(extra.amount, currency)}`, extra.code)));
    }
}
/**
 * The bank's page for a charge opens in a new tab: this page stays, keeps reading payment-status and
 * shows the outcome as soon as the platform has it.
 */
function authenticateCharge() {
    if (!client.openAuthentication(state.status || {})) {
        $('authenticate-note').textContent = 'Your browser blocked the new tab: allow pop-ups for this site, then press the button again.';
        return;
    }
    $('authenticate-note').textContent = "Your bank's page opened in a new tab. Confirm the payment there; this page updates by itself.";
    void watchMoney(known(state.session, 'session').id);
}
async function watchMoney(sessionId) {
    state.watch?.abort();
    const watch = new AbortController();
    state.watch = watch;
    try {
        await client.watchPaymentStatus(sessionId, {
            signal: watch.signal,
            onUpdate: (status) => {
                if (!watch.signal.aborted)
                    renderStatus(status);
            },
        });
    }
    catch (error) {
        if (!watch.signal.aborted)
            showProblem(error, 'final-error');
    }
}
async function showBooking(session) {
    if (!session.booking)
        return;
    const confirmed = await client.waitForSession(session.id, (current) => current.booking?.status !== 'reserved', { timeoutMs: 15_000 });
    // A session that booked keeps its booking.
    const booking = confirmed.booking;
    state.booking = booking;
    if (state.status)
        renderLead();
    else {
        $('confirmation').textContent = `${BOOKING_WORDS[booking.status] || booking.status} — confirmation code ${booking.confirmationCode}`;
        $('confirmation').hidden = false;
    }
}
/** The return page after 3-D Secure too (this page is CHECKOUT_RETURN_URL in sandbox mode). */
async function showResult(sessionId) {
    setProgress('done');
    show('step-done');
    $('final-error').textContent = '';
    const stay = recalledStay(sessionId);
    $('done-stay').textContent = stay;
    $('paying-for').textContent = stay;
    let session;
    try {
        session = await client.session(sessionId);
        if (session.status === 'processing') {
            $('final-status').className = 'status pending';
            $('final-status').textContent = 'We are confirming your card…';
            session = await client.waitForSession(sessionId, (current) => current.status !== 'processing');
        }
    }
    catch (error) {
        showProblem(error, 'final-error');
        return;
    }
    state.session = session;
    state.status = null;
    state.booking = null;
    $('confirmation').hidden = true;
    $('amount').textContent = money(session.amount, session.currency);
    if (session.status !== 'succeeded') {
        $('final-status').className = 'status failed';
        $('final-status').textContent =
            session.status === 'failed' ? 'Payment failed — the card was not accepted' : `Not paid yet (${session.status.replaceAll('_', ' ')})`;
        // The service's message already says what to do; the button below offers it.
        $('final-message').textContent = session.lastError ? session.lastError.message : '';
        $('retry').hidden = false;
        $('authenticate').hidden = true;
        $('extras').hidden = true;
        return;
    }
    $('final-status').className = 'status pending';
    // A succeeded session has its card.
    $('final-status').textContent = `Card ending ${session.paymentMethod.last4} on file — checking the payment…`;
    await Promise.all([watchMoney(sessionId), showBooking(session).catch((error) => showProblem(error, 'final-error'))]);
}
async function addExtra() {
    $('extra-error').textContent = '';
    $('extra-result').textContent = '';
    $('add-extra').disabled = true;
    try {
        const session = known(state.session, 'session');
        const added = await client.addExtras(session.id, [
            { code: $('extra').value, quantity: Number($('quantity').value) },
        ]);
        $('extra-result').textContent = added.items
            .map((item) => `Added: ${item.title} × ${item.quantity} = ${money(item.amount, session.currency)}.`)
            .join(' ');
        await watchMoney(session.id);
    }
    catch (error) {
        showProblem(error, 'extra-error');
    }
    finally {
        $('add-extra').disabled = false;
    }
}
async function start() {
    $('exp_year').value = String(new Date().getFullYear() + 2);
    $('mode-book').addEventListener('click', () => setMode('book'));
    $('mode-pay').addEventListener('click', () => setMode('pay'));
    $('get-quote').addEventListener('click', () => void getQuote());
    $('to-guest').addEventListener('click', toGuest);
    $('guest-form').addEventListener('submit', (event) => void book(event));
    $('start').addEventListener('click', () => void startCheckout());
    $('card-form').addEventListener('submit', (event) => void pay(event));
    $('add-extra').addEventListener('click', () => void addExtra());
    $('authenticate').addEventListener('click', authenticateCharge);
    $('retry').addEventListener('click', () => {
        state.watch?.abort();
        toCard(known(state.session, 'session'));
    });
    try {
        await loadFixtures();
    }
    catch (error) {
        showProblem(error, 'quote-error');
    }
    const returned = new URLSearchParams(window.location.search).get('session');
    if (returned)
        await showResult(returned);
    else {
        setMode('book');
        await loadCalendar().catch((error) => showProblem(error, 'quote-error'));
    }
}
document.addEventListener('DOMContentLoaded', () => void start());
// Back from the issuer's page by the browser's Back button: the page may come from its cache; ask again.
window.addEventListener('pageshow', (event) => {
    const returned = new URLSearchParams(window.location.search).get('session');
    if (event.persisted && returned)
        void showResult(returned);
});
