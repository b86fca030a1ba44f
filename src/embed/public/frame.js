// Compiled from browser/frame.ts by `npm run browser`: edit that file, then run it again.

// The drop-in checkout's page, framed by a property manager's site (src/embed/public/embed.js).
// It calls the service only through the typed client, on the service's own origin: the site
// around it never sees a card number. What happens is told to the site by postMessage, to its
// origin alone (the service checked that origin before it served this page).
import { CheckoutClient, CheckoutError } from './checkout-client.js';
import { WORDS } from './frame-words.js';
/** An element of frame.html by its id: the page has every id this code names. */
const $ = (id) => document.getElementById(id);
const root = document.documentElement;
/** What the service wrote on the page's root (embed.service.ts): the host and the listing always. */
const settings = {
    host: root.dataset.host,
    listingId: root.dataset.listing,
    locale: root.lang === 'de' ? 'de' : 'en',
    currencyDisplay: (root.dataset.currencyDisplay || 'symbol'),
    /** The platform's payment-form SDK, when it takes the card (CARD_COLLECTION=sdk); else this page's own fields. */
    sdkScript: root.dataset.sdkScript,
};
const words = WORDS[settings.locale];
const client = new CheckoutClient();
const DAY_MS = 24 * 3600 * 1000;
/** The first day a stay may start, its month, and the last month the calendar reaches (18 months on). */
const FIRST_DAY = isoDay(1);
const FIRST_MONTH = FIRST_DAY.slice(0, 7);
const LAST_MONTH = monthAfter(FIRST_MONTH, 18);
const LAST_DAY = lastDayOf(LAST_MONTH);
/** The checkout as it stands: written by setState alone. */
let state = {
    checkIn: null,
    checkOut: null,
    months: {},
    shown: FIRST_MONTH,
    focus: null,
    quote: null,
    session: null,
    title: '',
    hold: undefined,
    popup: null,
    currency: 'USD',
    booked: null,
    status: null,
    extras: null,
    told: null,
};
/** The checkout after a move: a new state, the current one left as it was. */
function moved(current, move) {
    switch (move.type) {
        case 'listing-read':
            return { ...current, title: move.title };
        case 'months-asked':
        case 'months-failed':
            return {
                ...current,
                months: { ...current.months, ...monthsSaying(move.months, move.type === 'months-asked' ? 'reading' : 'failed') },
            };
        case 'months-read': {
            const read = Object.fromEntries(move.months.map((month) => [month, move.days.filter((day) => day.date.startsWith(month))]));
            return { ...current, months: { ...current.months, ...read }, currency: move.currency || current.currency };
        }
        case 'months-shown':
            return { ...current, shown: move.first };
        case 'day-focused':
            return { ...current, focus: move.date, shown: move.shown };
        case 'arrival-picked':
            return { ...current, checkIn: move.date, checkOut: null, focus: move.date };
        case 'departure-picked':
            return { ...current, checkOut: move.date, focus: move.date };
        case 'quoted':
            return { ...current, quote: move.quote };
        case 'session-read':
            return { ...current, session: move.session };
        // A new stay after the hold ended, on a calendar read again; what the last booking's money said stays until the next is done.
        case 'restarted':
            return { ...current, checkIn: null, checkOut: null, quote: null, session: null, months: {}, focus: null };
        case 'hold-counted':
            return { ...current, hold: move.hold };
        case 'bank-opened':
            return { ...current, popup: move.popup };
        case 'done':
            return { ...current, booked: 'reserved', status: null };
        case 'extras-read':
            return { ...current, extras: move.extras };
        case 'booking-read':
            return { ...current, booked: move.booked };
        case 'money-read':
            return { ...current, status: move.status };
        case 'told': {
            // A new card is told of afresh.
            const told = current.told && current.told.card === move.card ? current.told : { card: move.card, paid: false, failed: false };
            return { ...current, told: move.said === 'paid' ? { ...told, paid: true } : { ...told, failed: true } };
        }
    }
}
function monthsSaying(months, read) {
    return Object.fromEntries(months.map((month) => [month, read]));
}
/** The one writer of the state; the page then shows what follows from it. */
function setState(move) {
    const was = state;
    state = moved(state, move);
    render(was, state);
}
/** The parts of the page drawn from the state alone, each repainted when what it shows changed. */
function render(was, now) {
    if (now.title !== was.title)
        $('listing-title').textContent = now.title;
    // Focus stays in the calendar when it was there: a repaint or a key moves it to the tab stop.
    const inCalendar = $('calendar').contains(document.activeElement);
    const monthsNow = monthsOnPage(now.shown);
    if (now.shown !== was.shown || now.currency !== was.currency || monthsNow.some((month) => now.months[month] !== was.months[month]))
        paintCalendar(inCalendar);
    else if (now.checkIn !== was.checkIn || now.checkOut !== was.checkOut || now.focus !== was.focus)
        paintChoice(inCalendar && now.focus !== was.focus);
    if (now.status && now.status !== was.status)
        paintMoney(now.status);
    if (now.booked && (now.booked !== was.booked || now.status !== was.status))
        paintHeading();
}
/** The session the card and done steps are about: booked before either shows. */
function bookedSession() {
    if (!state.session)
        throw new Error('no booking yet');
    return state.session;
}
/** The quote the guest booked from: quoted before the rate step shows. */
function bookedQuote() {
    if (!state.quote)
        throw new Error('no quote yet');
    return state.quote;
}
// ---------- talking to the site ----------
/** Framed by the origin the service checked (Chromium also says who frames the page: it must agree). */
function framedByHost() {
    if (window.parent === window)
        return false;
    // Only some browsers say who frames the page.
    const ancestors = window.location.ancestorOrigins;
    return !ancestors || ancestors.length === 0 || ancestors[0] === settings.host;
}
function tell(type, detail = {}) {
    if (framedByHost())
        window.parent.postMessage({ type, detail }, settings.host);
}
/** The content's own height (the document's would never fall below the frame's current height). */
function tellHeight() {
    tell('checkout.resize', { height: document.body.getBoundingClientRect().height });
}
// ---------- words, money, days ----------
function money(amount, currency) {
    return new Intl.NumberFormat(settings.locale, { style: 'currency', currency, currencyDisplay: settings.currencyDisplay }).format(amount);
}
function dayText(isoDate, options = { weekday: 'short', day: 'numeric', month: 'short' }) {
    return new Intl.DateTimeFormat(settings.locale, { ...options, timeZone: 'UTC' }).format(new Date(`${isoDate.slice(0, 10)}T00:00:00Z`));
}
/** A time in the guest's own time zone (the browser's). */
function timeText(instant) {
    return new Intl.DateTimeFormat(settings.locale, { hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(new Date(instant));
}
function isoDay(offsetDays) {
    return new Date(Date.now() + offsetDays * DAY_MS).toISOString().slice(0, 10);
}
function nightsBetween(from, to) {
    return Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS);
}
function addDays(isoDate, days) {
    return new Date(Date.parse(isoDate) + days * DAY_MS).toISOString().slice(0, 10);
}
/** The month (YYYY-MM) `count` months after `month`. */
function monthAfter(month, count) {
    return new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1 + count, 1)).toISOString().slice(0, 7);
}
function lastDayOf(month) {
    return addDays(`${monthAfter(month, 1)}-01`, -1);
}
/** The same day `count` months on, or that month's last day when it is shorter. */
function addMonths(isoDate, count) {
    const month = monthAfter(isoDate.slice(0, 7), count);
    const last = lastDayOf(month);
    const same = `${month}-${isoDate.slice(8, 10)}`;
    return same < last ? same : last;
}
/** Monday 0 to Sunday 6: the calendar's weeks start on Monday. */
function weekdayOf(isoDate) {
    return (new Date(`${isoDate}T00:00:00Z`).getUTCDay() + 6) % 7;
}
function putWords() {
    for (const element of document.querySelectorAll('[data-words]'))
        element.textContent = words[element.dataset.words];
    for (const element of document.querySelectorAll('[data-words-label]'))
        element.setAttribute('aria-label', words[element.dataset.wordsLabel]);
}
function applyTheme() {
    const { color, font, radius } = root.dataset;
    if (color)
        root.style.setProperty('--brand', color);
    if (font)
        root.style.setProperty('--font', `"${font}", system-ui, sans-serif`);
    if (radius !== undefined)
        root.style.setProperty('--radius', `${radius}px`);
}
// ---------- steps and problems ----------
const STEPS = ['step-stay', 'step-plan', 'step-guest', 'step-card', 'step-done'];
/** One step at a time; focus goes to its heading, so a screen reader and the keyboard start there. */
function show(step) {
    for (const id of STEPS)
        $(id).hidden = id !== step;
    // The calendar's tab stop is a day on screen: found again once its step shows.
    if (step === 'step-stay')
        paintChoice(false);
    $(step).querySelector('h1')?.focus();
    tellHeight();
}
function clearProblems() {
    $('problem').hidden = true;
    for (const element of document.querySelectorAll('.error'))
        element.textContent = '';
    for (const element of document.querySelectorAll('.field-error'))
        element.remove();
    for (const input of document.querySelectorAll('[aria-invalid]')) {
        input.removeAttribute('aria-invalid');
        input.removeAttribute('aria-describedby');
    }
}
/** What the service said of a failure; nothing for a failure of the network or of this page. */
function problemOf(error) {
    return error instanceof CheckoutError ? error.problem : {};
}
function messageOf(error) {
    return error instanceof Error ? error.message : String(error);
}
/**
 * A problem's words where the guest is: each field error under its field, the field named by its
 * label rather than the API's path; the rest in `target`. Focus goes to the first field wrong, else the message.
 */
function showProblem(error, target) {
    const problem = problemOf(error);
    let first = null;
    const unplaced = [];
    for (const fieldError of problem.errors || []) {
        // The card's month and year are one field here.
        const name = fieldError.field === 'card.exp_year' ? 'card.exp_month' : fieldError.field;
        const input = document.querySelector(`[name="${CSS.escape(name)}"]`);
        const label = input && document.querySelector(`label[for="${input.id}"]`);
        if (!input || !label) {
            unplaced.push(fieldError.message);
            continue;
        }
        const said = document.createElement('p');
        said.className = 'field-error';
        said.id = `${input.id}-error`;
        said.textContent = fieldError.message.replace(fieldError.field, (label.textContent ?? '').replace(/ \(.*\)$/, ''));
        const earlier = document.getElementById(said.id);
        if (earlier)
            earlier.textContent += ` ${said.textContent}`;
        else
            input.closest('.field')?.append(said);
        input.setAttribute('aria-invalid', 'true');
        input.setAttribute('aria-describedby', said.id);
        first ??= input;
    }
    $(target).textContent = [...new Set([limitWords(problem) || problem.detail || messageOf(error), ...unplaced])].join(' ');
    (first || $(target)).focus();
    tellHeight();
}
/** A stay's length refused with its limit as a number: said in the checkout's language, not the service's English. */
function limitWords(problem) {
    if (problem.reason === 'stay_too_short' && problem.minNights)
        return words.stayTooShort(problem.minNights);
    if (problem.reason === 'stay_too_long' && problem.maxNights)
        return words.stayTooLong(problem.maxNights);
    return '';
}
// ---------- 1. the stay ----------
async function loadStay() {
    const [failed, summary] = await Promise.all([readAround(), client.listing(settings.listingId).catch(() => null)]);
    // A listing the service does not know cannot be sold; any other failed month offers its retry.
    if (problemOf(failed).code === 'listing_not_found')
        throw failed;
    setState({ type: 'listing-read', title: summary ? [summary.title, summary.city].filter(Boolean).join(', ') : '' });
}
/** Months being read, so that a month is asked for once however many keys wait for it. */
const reading = new Map();
/**
 * The months on the page, read when not yet asked for: one call for the first unread one and the
 * month after it, so paging reads a month or two at a time and never more than the page and the next.
 * Resolves with the failure, if any.
 */
function readAround() {
    const onPage = monthsOnPage(state.shown);
    const first = onPage.find((month) => state.months[month] === undefined);
    if (first) {
        const after = monthAfter(first, 1);
        void readMonths(after <= LAST_MONTH && state.months[after] === undefined ? [first, after] : [first]);
    }
    return Promise.all(onPage.map((month) => reading.get(month) ?? Promise.resolve(undefined))).then((failures) => failures.find(Boolean));
}
function readMonths(months) {
    setState({ type: 'months-asked', months });
    const from = months[0] === FIRST_MONTH ? FIRST_DAY : `${months[0]}-01`;
    const read = client.calendar(settings.listingId, from, lastDayOf(months[months.length - 1])).then((calendar) => void setState({ type: 'months-read', months, days: calendar.days, currency: calendar.currency }), (error) => {
        setState({ type: 'months-failed', months });
        return error;
    });
    for (const month of months)
        reading.set(month, read);
    void read.finally(() => months.forEach((month) => reading.delete(month)));
    return read;
}
/** The months the calendar draws: the first shown and the one after it (CSS hides it on a phone). */
function monthsOnPage(first) {
    return [first, monthAfter(first, 1)].filter((month) => month <= LAST_MONTH);
}
/** How many months the layout shows side by side: frame.css says, by the width. */
function monthsVisible() {
    return getComputedStyle($('calendar')).getPropertyValue('--months').trim() === '2' ? 2 : 1;
}
/** The first month to show so that `month` is on screen, the shown ones kept where they can be. */
function showing(month) {
    const count = monthsVisible();
    if (month < state.shown)
        return month;
    if (month > monthAfter(state.shown, count - 1))
        return monthAfter(month, 1 - count);
    return state.shown;
}
function pageMonths(by) {
    setState({ type: 'months-shown', first: monthAfter(state.shown, by) });
    void readAround();
}
function dayOn(date) {
    const read = state.months[date.slice(0, 7)];
    return Array.isArray(read) ? read.find((day) => day.date === date) : undefined;
}
/** Every night from `from` up to the night before `to` is known and free. */
function nightsFree(from, to) {
    for (let night = from; night < to; night = addDays(night, 1))
        if (!dayOn(night)?.available)
            return false;
    return true;
}
/** The day would be taken as the departure: after the arrival, every night between free. */
function departs(day) {
    const { checkIn, checkOut } = state;
    return Boolean(checkIn && !checkOut && day.date > checkIn && day.checkOutAllowed && nightsFree(checkIn, day.date));
}
/** A press on the day would choose it (as the departure or an arrival): the only days focus rests on. */
function choosable(day) {
    return departs(day) || (day.available && day.checkInAllowed);
}
function paintCalendar(refocus) {
    const calendar = $('calendar');
    const usual = usualMinNights();
    $('stay-rule').textContent = usual > 1 ? words.minStayUsual(usual) : '';
    calendar.replaceChildren(...monthsOnPage(state.shown).map((month) => paintMonth(month, usual)));
    $('month-back').disabled = state.shown <= FIRST_MONTH;
    $('month-next').disabled = monthAfter(state.shown, monthsVisible() - 1) >= LAST_MONTH;
    paintChoice(false);
    if (refocus)
        (tabStop() ?? calendar).focus();
    tellHeight();
}
/** The minimum stay most days read so far ask for: said once above the calendar, marked on the days that differ. */
function usualMinNights() {
    const counts = new Map();
    for (const read of Object.values(state.months))
        if (Array.isArray(read))
            for (const day of read)
                counts.set(day.minNights, (counts.get(day.minNights) ?? 0) + 1);
    return [...counts].sort((one, other) => other[1] - one[1])[0]?.[0] ?? 1;
}
function paintMonth(month, usual) {
    const box = document.createElement('div');
    box.className = 'month';
    const name = document.createElement('h2');
    name.id = `month-${month}`;
    name.textContent = dayText(`${month}-01`, { month: 'long', year: 'numeric' });
    box.append(name);
    const read = state.months[month];
    if (read === 'failed') {
        const said = document.createElement('p');
        said.className = 'error';
        said.textContent = words.monthFailed(name.textContent);
        const retry = document.createElement('button');
        retry.type = 'button';
        retry.className = 'secondary';
        retry.textContent = words.tryAgain;
        retry.addEventListener('click', () => void readMonths([month]));
        box.append(said, retry);
    }
    else if (read === undefined || read === 'reading') {
        const said = document.createElement('p');
        said.className = 'hint';
        said.textContent = words.monthLoading;
        box.append(said);
    }
    else {
        box.append(monthGrid(month, name.id, read, usual));
    }
    return box;
}
/** The month as a WAI-ARIA grid: a row a week from Monday, a cell a day, a button for each day read. */
function monthGrid(month, labelId, days, usual) {
    const grid = document.createElement('table');
    grid.className = 'days';
    grid.setAttribute('role', 'grid');
    grid.setAttribute('aria-labelledby', labelId);
    const head = grid.createTHead().insertRow();
    for (let index = 0; index < 7; index += 1) {
        const monday = `2024-01-0${index + 1}`;
        const weekday = document.createElement('th');
        weekday.scope = 'col';
        weekday.abbr = dayText(monday, { weekday: 'long' });
        weekday.textContent = dayText(monday, { weekday: 'short' });
        head.append(weekday);
    }
    const body = grid.createTBody();
    let row = body.insertRow();
    for (let blank = 0; blank < weekdayOf(`${month}-01`); blank += 1)
        row.insertCell();
    for (let date = `${month}-01`; date.startsWith(month); date = addDays(date, 1)) {
        if (row.cells.length === 7)
            row = body.insertRow();
        const cell = row.insertCell();
        const day = days.find((each) => each.date === date);
        if (day)
            cell.append(dayButton(day, usual));
        else {
            // Before the first day a stay may start: shown, never a stop.
            cell.className = 'past';
            cell.textContent = String(Number(date.slice(8, 10)));
        }
    }
    while (row.cells.length < 7)
        row.insertCell();
    return grid;
}
/**
 * A day's button, its name made of its visible text and then the words it implies (the date, what
 * the marks mean), so the name always holds what the guest sees.
 */
function dayButton(day, usual) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'day';
    button.dataset.date = day.date;
    button.tabIndex = -1;
    button.classList.toggle('taken', !day.available);
    const priced = day.available && day.price !== null;
    const number = document.createElement('span');
    number.textContent = String(Number(day.date.slice(8, 10)));
    const price = document.createElement('small');
    price.textContent = priced ? shortMoney(day.price) : '—';
    const [mark, meaning] = markOf(day, usual);
    const told = document.createElement('span');
    told.className = 'visually-hidden';
    told.textContent = [
        `, ${dayText(day.date, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' })}`,
        priced ? '' : words.taken,
        meaning,
    ]
        .filter(Boolean)
        .join(', ');
    const chosen = document.createElement('span');
    chosen.className = 'visually-hidden said';
    button.append(number, ' ', price);
    if (mark) {
        const marked = document.createElement('small');
        marked.className = 'mark';
        marked.textContent = mark;
        button.append(' ', marked);
    }
    button.append(told, chosen);
    button.addEventListener('click', () => pickDay(day));
    return button;
}
/**
 * What a day shows beside its price, and what that means in words: the stay rules, never colour
 * alone. A minimum stay is shown where it differs from the usual one said above the calendar.
 */
function markOf(day, usual) {
    if (!day.available) {
        const before = dayOn(addDays(day.date, -1));
        return before?.available && day.checkOutAllowed ? [words.departureOnly, words.departureOnlyLong] : ['', ''];
    }
    if (!day.checkInAllowed)
        return [words.noArrival, ''];
    const minStay = day.minNights > 1 ? words.minStayLong(day.minNights) : '';
    if (!day.checkOutAllowed)
        return [words.arrivalOnly, [words.arrivalOnlyLong, minStay].filter(Boolean).join(', ')];
    return [day.minNights > 1 && day.minNights !== usual ? words.minStay(day.minNights) : '', minStay];
}
/** A night's price in a cell: whole units, no cents. */
function shortMoney(amount) {
    return new Intl.NumberFormat(settings.locale, {
        style: 'currency',
        currency: state.currency,
        currencyDisplay: settings.currencyDisplay === 'name' ? 'symbol' : settings.currencyDisplay,
        maximumFractionDigits: 0,
    }).format(amount);
}
/** The arrival, then the departure: every night between must be free, the departure day itself need not be. */
function pickDay(day) {
    const { checkIn } = state;
    if (checkIn && departs(day)) {
        setState({ type: 'departure-picked', date: day.date });
        $('calendar-hint').textContent = words.stayChosen(dayText(checkIn), dayText(day.date), nightsBetween(checkIn, day.date));
    }
    else if (!day.available || !day.checkInAllowed) {
        $('calendar-hint').textContent = words.notArrival(dayText(day.date));
    }
    else {
        setState({ type: 'arrival-picked', date: day.date });
        $('calendar-hint').textContent = words.pickDeparture(dayText(day.date), day.minNights);
    }
    $('see-prices').disabled = !(state.checkIn && state.checkOut);
}
/** The day buttons on screen (the month a phone hides is not). */
function daysOnScreen() {
    return [...$('calendar').querySelectorAll('.day')].filter((button) => button.checkVisibility());
}
/** The calendar's one tab stop: the day the guest moved to, else the arrival, else the first day to choose. */
function tabStop() {
    const stops = daysOnScreen().filter((button) => button.getAttribute('aria-disabled') !== 'true');
    return (['focus', 'checkIn'].map((key) => stops.find((button) => button.dataset.date === state[key])).find(Boolean) ??
        stops[0]);
}
function paintChoice(refocus) {
    const { checkIn, checkOut } = state;
    for (const button of $('calendar').querySelectorAll('.day')) {
        const date = button.dataset.date;
        const day = dayOn(date);
        const inside = Boolean(checkIn && checkOut && date > checkIn && date < checkOut);
        button.classList.toggle('chosen', date === checkIn || date === checkOut);
        button.classList.toggle('inside', inside);
        button.parentElement?.setAttribute('aria-selected', String(date === checkIn || date === checkOut || inside));
        const said = date === checkIn ? words.yourArrival : date === checkOut ? words.yourDeparture : inside ? words.inYourStay : '';
        button.querySelector('.said').textContent = said ? `, ${said}` : '';
        if (choosable(day))
            button.removeAttribute('aria-disabled');
        else
            button.setAttribute('aria-disabled', 'true');
        button.tabIndex = -1;
    }
    const stop = tabStop();
    if (stop)
        stop.tabIndex = 0;
    if (refocus)
        stop?.focus();
}
/** Where a key sends focus from `from`: the first day to try, the step between tries, the last to try. */
function keyMove(key, shiftKey, from) {
    const weekday = weekdayOf(from);
    const ahead = (start, step) => ({ start, step, last: addDays(start, 62 * Math.sign(step)) });
    switch (key) {
        case 'ArrowRight':
            return ahead(addDays(from, 1), 1);
        case 'ArrowLeft':
            return ahead(addDays(from, -1), -1);
        case 'ArrowDown':
            return ahead(addDays(from, 7), 7);
        case 'ArrowUp':
            return ahead(addDays(from, -7), -7);
        case 'Home':
            return { start: addDays(from, -weekday), step: 1, last: addDays(from, -1) };
        case 'End':
            return { start: addDays(from, 6 - weekday), step: -1, last: addDays(from, 1) };
        case 'PageDown':
        case 'PageUp': {
            const start = addMonths(from, (key === 'PageDown' ? 1 : -1) * (shiftKey ? 12 : 1));
            return { start, step: 1, last: key === 'PageDown' ? addDays(start, 31) : addDays(from, -1) };
        }
        default:
            return null;
    }
}
/** Focus to the first day that can be chosen from `start` on by `step`, reading and showing its month. */
async function focusDay(start, step, last) {
    for (let date = start; step > 0 ? date <= last : date >= last; date = addDays(date, step)) {
        if (date > LAST_DAY || (date < FIRST_DAY && step < 0))
            return;
        if (date < FIRST_DAY)
            continue;
        const month = date.slice(0, 7);
        if (!Array.isArray(state.months[month])) {
            setState({ type: 'months-shown', first: showing(month) });
            await readAround();
            if (!Array.isArray(state.months[month]))
                return;
        }
        const day = dayOn(date);
        if (day && choosable(day)) {
            setState({ type: 'day-focused', date, shown: showing(month) });
            return;
        }
    }
}
/** Keys pressed while a month is read wait their turn: each moves on from where the one before left focus. */
let keys = Promise.resolve();
function onCalendarKey(event) {
    const { key, shiftKey, target } = event;
    const inCalendar = target.closest('.day') || target === $('calendar');
    if (!inCalendar || !keyMove(key, shiftKey, FIRST_DAY))
        return;
    event.preventDefault();
    keys = keys
        .then(() => {
        const move = state.focus && keyMove(key, shiftKey, state.focus);
        return move ? focusDay(move.start, move.step, move.last) : undefined;
    })
        .catch(() => undefined);
}
/** The day the guest is on, by a key, a press or Tab: where the next key moves from. */
function onDayFocused(event) {
    const date = event.target.closest('.day')?.dataset.date;
    if (date && date !== state.focus)
        setState({ type: 'day-focused', date, shown: state.shown });
}
async function seePrices() {
    const { checkIn, checkOut } = state;
    // The button is enabled only once both days are picked.
    if (!checkIn || !checkOut)
        return;
    clearProblems();
    $('see-prices').disabled = true;
    $('coupon-said').textContent = '';
    $('plan-coupon').textContent = '';
    try {
        const coupon = $('coupon').value.trim();
        const quote = await client.quote({
            listingId: settings.listingId,
            checkIn,
            checkOut,
            guestsCount: Number($('guests').value),
            ...(coupon ? { coupon } : {}),
        });
        setState({ type: 'quoted', quote });
        paintPlans(quote);
        tell('checkout.quoted', {
            listingId: settings.listingId,
            checkIn: quote.checkIn,
            checkOut: quote.checkOut,
            guestsCount: quote.guestsCount,
            currency: quote.currency,
            total: quote.ratePlans[0]?.total,
        });
        show('step-plan');
        // Said once the plan step shows, so its status line is announced; beside the coupon field too, for the way back.
        const said = couponSaid(quote);
        $('plan-coupon').textContent = said;
        $('coupon-said').textContent = said;
    }
    catch (error) {
        showProblem(error, 'stay-error');
    }
    finally {
        $('see-prices').disabled = !(state.checkIn && state.checkOut);
    }
}
/** Whether the coupon asked for is in the prices, from the quote's stable `couponApplied` (its English message is for other sites). */
function couponSaid(quote) {
    if (!quote.coupon)
        return '';
    return quote.couponApplied === false ? words.couponRejected(quote.coupon) : words.couponApplied(quote.coupon);
}
function stayLine(quote) {
    return [
        state.title,
        `${dayText(quote.checkIn)} → ${dayText(quote.checkOut)}`,
        words.nights(quote.nights),
        words.guestsCount(quote.guestsCount),
    ]
        .filter(Boolean)
        .join(' · ');
}
// ---------- 2. the rate ----------
function paintPlans(quote) {
    $('plan-stay').textContent = stayLine(quote);
    const plans = $('rate-plans');
    plans.querySelectorAll('label').forEach((label) => label.remove());
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
            `${words.accommodation} ${money(accommodation, quote.currency)}`,
            discount ? `${words.discount} −${money(discount, quote.currency)}` : '',
            cleaning ? `${words.cleaning} ${money(cleaning, quote.currency)}` : '',
            fees ? `${words.fees} ${money(fees, quote.currency)}` : '',
            taxes ? `${words.taxes} ${money(taxes, quote.currency)}` : '',
        ].filter(Boolean);
        const name = document.createElement('strong');
        name.textContent = `${plan.name}: ${money(plan.total, quote.currency)}`;
        const breakdown = document.createElement('small');
        breakdown.textContent = parts.join(' · ');
        text.append(name, breakdown);
        label.append(radio, text);
        plans.append(label);
    });
}
function chosenPlan() {
    const id = document.querySelector('input[name="rate-plan"]:checked')?.value;
    const { ratePlans } = bookedQuote();
    return ratePlans.find((plan) => plan.id === id) || ratePlans[0];
}
// ---------- 3. the guest, and the booking ----------
async function book(event) {
    event.preventDefault();
    clearProblems();
    $('book').disabled = true;
    try {
        const phone = $('phone').value.trim();
        const plan = chosenPlan();
        const session = await client.book({
            quoteId: bookedQuote().id,
            ratePlanId: plan.id,
            guest: {
                firstName: $('first-name').value.trim(),
                lastName: $('last-name').value.trim(),
                email: $('email').value.trim(),
                ...(phone ? { phone } : {}),
            },
        });
        setState({ type: 'session-read', session });
        tell('checkout.booked', {
            reservationId: session.reservationId,
            confirmationCode: session.booking?.confirmationCode,
            holdExpiresAt: session.booking?.holdExpiresAt,
            amount: session.amount,
            currency: session.currency,
        });
        toCard('');
    }
    catch (error) {
        showProblem(error, 'guest-error');
    }
    finally {
        $('book').disabled = false;
    }
}
// ---------- 4. the card ----------
/** The card step; `why` says why the guest is back here (a card refused, a charge declined). */
function toCard(why) {
    const session = bookedSession();
    $('summary-stay').textContent = state.quote ? `${stayLine(state.quote)} · ${chosenPlan().name}` : '';
    $('summary-total').textContent = `${words.total}: ${money(session.amount, session.currency)}`;
    $('pay').textContent = words.pay(money(session.amount, session.currency));
    $('card-why').textContent = why;
    for (const id of ['number', 'expiry', 'cvc'])
        $(id).value = '';
    $('brand').textContent = '';
    watchHold();
    show('step-card');
    if (settings.sdkScript)
        void renderSdk();
}
/** Back to the dates after the hold ended: a new quote, a new booking. */
function restart() {
    clearInterval(state.hold);
    setState({ type: 'restarted' });
    $('restart').hidden = true;
    $('pay').disabled = false;
    $('see-prices').disabled = true;
    $('calendar-hint').textContent = words.pickArrival;
    $('coupon-said').textContent = '';
    void loadStay().catch((error) => showProblem(error, 'stay-error'));
    show('step-stay');
}
let sdkLoading = null;
/** window.guestyTokenization, its script loaded once from the pay host (as the SDK's loadScript does). */
function sdk() {
    sdkLoading ??= new Promise((resolve, reject) => {
        const script = document.createElement('script');
        script.src = settings.sdkScript;
        script.async = true;
        const failed = () => {
            // Not kept: the next card step tries again.
            script.remove();
            sdkLoading = null;
            reject(new Error(words.cardFormFailed));
        };
        script.onload = () => (window.guestyTokenization ? resolve(window.guestyTokenization) : failed());
        script.onerror = failed;
        document.head.append(script);
    });
    return sdkLoading;
}
/** A fresh form for each card (a declined one is not shown again). */
async function renderSdk() {
    $('card-fields').hidden = true;
    $('sdk-card').hidden = false;
    try {
        const tokenization = await sdk();
        await tokenization.destroy().catch(() => undefined);
        await tokenization.render({ containerId: 'sdk-card', providerId: bookedSession().paymentProviderId, lang: settings.locale });
    }
    catch (error) {
        showProblem(error, 'card-error');
    }
    tellHeight();
}
/** The SDK's token for this reservation's amount: the service attaches it (the `{token}` body). */
async function sdkToken() {
    const session = bookedSession();
    const { _id } = await (await sdk()).submit({ listingId: session.listingId, reservationId: session.reservationId, amount: session.amount, currency: session.currency });
    return { token: _id };
}
function watchHold() {
    clearInterval(state.hold);
    const session = bookedSession();
    const until = session.booking?.holdExpiresAt;
    if (!until || session.status === 'succeeded') {
        $('hold').textContent = '';
        return;
    }
    const paint = () => {
        const left = Date.parse(until) - Date.now();
        $('hold').textContent = left > 0 ? `${words.held(timeText(until))} ${words.heldLeft(Math.ceil(left / 60_000))}` : words.holdEnded;
        if (left > 0)
            return;
        // The dates are free again: nothing can be paid here; the guest starts over.
        clearInterval(state.hold);
        $('pay').disabled = true;
        $('restart').hidden = false;
    };
    paint();
    setState({ type: 'hold-counted', hold: setInterval(paint, 15_000) });
}
/** The brand the number's first digits name, as the card schemes publish them. */
function brandOf(digits) {
    if (/^3[47]/.test(digits))
        return 'American Express';
    if (/^4/.test(digits))
        return 'Visa';
    if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(digits))
        return 'Mastercard';
    if (/^(6011|65|64[4-9])/.test(digits))
        return 'Discover';
    return '';
}
/** Groups the number as typed: 4-6-5 for American Express, fours for the others. */
function groupNumber() {
    const input = $('number');
    const digits = input.value.replace(/\D/g, '').slice(0, 19);
    const groups = /^3[47]/.test(digits) ? [4, 6, 5] : [4, 4, 4, 4, 3];
    const parts = [];
    let at = 0;
    for (const size of groups) {
        if (at >= digits.length)
            break;
        parts.push(digits.slice(at, at + size));
        at += size;
    }
    input.value = parts.join(' ');
    $('brand').textContent = brandOf(digits);
}
/** MM/YY as typed: "4" is April ("04/"), "1/" is January ("01/"), and the slash comes by itself after the month. */
function formatExpiry(event) {
    const input = $('expiry');
    const typed = input.value;
    const digits = typed.replace(/\D/g, '');
    let [month, year] = typed.includes('/') ? typed.split('/') : [digits.slice(0, 2), digits.slice(2)];
    month = month.replace(/\D/g, '');
    year = year.replace(/\D/g, '');
    if (month.length === 1 && (typed.includes('/') || Number(month) > 1))
        month = `0${month}`;
    if (month.length > 2)
        [month, year] = [month.slice(0, 2), month.slice(2) + year];
    year = year.slice(0, 2);
    const erasing = event.inputType === 'deleteContentBackward';
    input.value = month.length === 2 && (year.length > 0 || !erasing) ? `${month}/${year}` : month;
}
/** "1/28" and "01/28" are both January 2028. */
function expiryParts() {
    const [month = '', year = ''] = $('expiry')
        .value.split('/')
        .map((part) => part.trim());
    return { exp_month: month.padStart(2, '0'), exp_year: year.length === 2 ? `20${year}` : year };
}
function cardBody() {
    const value = (id) => $(id).value.trim();
    return {
        card: { number: value('number').replace(/\s+/g, ''), ...expiryParts(), cvc: value('cvc') },
        billing_details: {
            name: value('card-name'),
            address: { line1: value('line1'), city: value('city'), postal_code: value('postal-code'), country: value('country').toUpperCase() },
        },
    };
}
async function pay(event) {
    event.preventDefault();
    clearProblems();
    $('pay').disabled = true;
    $('to-bank').hidden = true;
    try {
        const body = settings.sdkScript ? await sdkToken() : cardBody();
        setState({ type: 'session-read', session: await client.submitPaymentMethod(bookedSession().id, body, client.newAttempt()) });
        await afterCard();
    }
    catch (error) {
        const problem = problemOf(error);
        if (problem.code === 'card_declined')
            refused(problem.code, problem.detail ?? '');
        else
            showProblem(error, 'card-error');
    }
    finally {
        $('pay').disabled = false;
    }
}
/** Waits for the card's outcome: the bank when it asks (a replacement's too), then done, or back with the reason. */
async function afterCard() {
    let session = bookedSession();
    // A first card waits in requires_action; a replacement keeps its session succeeded with a nextAction.
    if (session.nextAction?.redirectUrl) {
        if (!openBank(session))
            return;
        session = await client.waitForSession(session.id, (current) => !current.nextAction && current.status !== 'requires_action', {
            timeoutMs: 15 * 60_000,
        });
        state.popup?.close();
    }
    const settled = (current) => (current.status === 'succeeded' && !current.nextAction) || current.status === 'failed';
    if (!settled(session)) {
        // Only a refusal is told as one: an outcome not known yet is never "not accepted" (product-spec §6.2).
        $('card-why').textContent = session.status === 'processing' ? words.confirming : words.stillConfirming;
        tellHeight();
        session = await client.waitForSession(session.id, settled, { timeoutMs: 30 * 60_000 });
    }
    setState({ type: 'session-read', session });
    if (settled(session)) {
        if (session.status === 'failed')
            refused(session.lastError?.code, session.lastError?.message || '');
        else
            await showDone();
        return;
    }
    $('card-why').textContent = words.stillConfirming;
    tellHeight();
}
/**
 * The issuer's page in a window of its own, kept by this page only to close it: the window gets no
 * way back to the checkout (its opener is cut before it loads). Opened late, the browser may block
 * it: the guest then opens it with a press of their own.
 */
function openBank(session) {
    const opened = client.openAuthentication(session, (url) => {
        const popup = window.open(url, 'checkout-issuer', 'popup,width=480,height=720');
        setState({ type: 'bank-opened', popup });
        // Cut before the issuer's page loads: it can never navigate the checkout to a page of its own.
        if (popup)
            popup.opener = null;
        return Boolean(popup);
    });
    $('card-why').textContent = opened ? words.bank : words.popupBlocked;
    $('to-bank').hidden = opened;
    tellHeight();
    return opened;
}
function refused(code, message) {
    tell('checkout.payment_failed', { reservationId: bookedSession().reservationId, code });
    toCard(words.cardFailed(message));
    $('card-why').focus();
}
// ---------- 5. done: the booking, and the truth about the money ----------
/** The states in which the booking's money is arranged: taken, scheduled on the card, or the host's to collect. */
const ARRANGED = ['paid', 'scheduled', 'balance_due'];
async function showDone() {
    clearInterval(state.hold);
    setState({ type: 'done' });
    const session = bookedSession();
    $('done-stay').textContent = $('summary-stay').textContent;
    $('confirmation').textContent = session.booking?.confirmationCode ? words.code(session.booking.confirmationCode) : '';
    $('money').textContent = words.onFile;
    for (const id of ['another-card', 'authenticate', 'extras'])
        $(id).hidden = true;
    show('step-done');
    if (!state.extras)
        setState({ type: 'extras-read', extras: await client.extrasCatalogue().catch(() => []) });
    // The booking and the money are watched apart: the lead line follows each as soon as it is read.
    await Promise.all([watchBooking(session), watchMoney(session.id)]);
}
/** After the first quarter minute, a booking still `reserved` is read again this often (a sweep's retry, a property's answer). */
const BOOKING_READ_AGAIN_MS = 10_000;
/**
 * The booking as the service reads it, until it is no longer `reserved` or its hold ended: closely
 * at first (a confirmation usually follows the card at once), then every 10 s, so a confirmation the
 * platform took longer to accept still changes the lead line without a reload.
 */
async function watchBooking(session) {
    const settled = (current) => current.booking?.status !== 'reserved';
    // A guest who started another booking meanwhile sees that one: this one's reads stop.
    const stillShown = () => state.session?.id === session.id;
    let current = await client.waitForSession(session.id, settled, { timeoutMs: 15_000 }).catch(() => session);
    const holdEnds = Date.parse(session.booking?.holdExpiresAt ?? '') || 0;
    for (;;) {
        if (!stillShown())
            return;
        bookingRead(current);
        if (settled(current) || Date.now() >= holdEnds)
            return;
        await new Promise((resolve) => setTimeout(resolve, BOOKING_READ_AGAIN_MS));
        current = await client.session(session.id).catch(() => current);
    }
}
function bookingRead(current) {
    const booked = current.booking?.status ?? 'reserved';
    // The platform ended the booking before it was confirmed (§3.1): never a confirmation code above that.
    if (booked === 'canceled' || booked === 'expired')
        $('confirmation').textContent = words.notConfirmed;
    setState({ type: 'booking-read', booked });
}
/** The booking's word in the lead line: until the platform says more, it is "requested". */
const BOOKED_WORDS = {
    confirmed: words.confirmed,
    canceled: words.canceled,
    expired: words.expired,
};
/** What the money asks of the guest, when it asks anything. */
const MONEY_NEEDS = {
    failed: words.paymentNeeded,
    missing: words.paymentNeeded,
    requires_authentication: words.bankNeeded,
};
/**
 * The lead line is what the guest must act on: a booking confirmed before its charge failed reads
 * "Booking confirmed: payment needed", never a confirmation above a failure.
 */
function paintHeading() {
    const booked = (state.booked && BOOKED_WORDS[state.booked]) ?? words.requested;
    const needs = state.status ? MONEY_NEEDS[state.status.state] : undefined;
    $('done-heading').textContent = needs ? `${booked}: ${needs}` : booked;
}
/** The money's line, the press it asks for and the extras it allows, as payment-status says it. */
function paintMoney(status) {
    const session = bookedSession();
    const currency = status.currency || session.currency;
    const text = {
        paid: () => words.paid(money(status.amountPaid ?? session.amount, currency)),
        scheduled: () => status.nextPayment ? words.scheduled(money(status.nextPayment.amount, currency), dayText(status.nextPayment.dueAt)) : words.onFile,
        balance_due: () => words.hostCollects(money(status.amountDue ?? 0, currency)),
        // The platform's reason, worded by the service for the guest, when it gave one.
        failed: () => status.diagnosis?.message || words.chargeFailed,
        missing: () => status.diagnosis?.message || words.chargeFailed,
        requires_authentication: () => words.needsBank,
    };
    const tone = { failed: 'bad', missing: 'bad', requires_authentication: 'action' };
    $('money').textContent = text[status.state]?.() ?? words.onFile;
    $('money').className = `money ${tone[status.state] ?? ''}`.trim();
    $('authenticate').hidden = !(status.state === 'requires_authentication' && status.nextAction);
    $('another-card').hidden = status.state !== 'failed' && status.state !== 'missing';
    paintExtras(ARRANGED.includes(status.state));
}
/**
 * What the platform says of the money, read until it settles. The site hears `checkout.paid` once the
 * money is arranged (never for a card on file whose charge then failed), `checkout.payment_failed`
 * when a charge fails; each once per card.
 */
async function watchMoney(sessionId) {
    const card = bookedSession().paymentMethod?.id;
    const read = (status) => {
        setState({ type: 'money-read', status });
        const session = bookedSession();
        const told = state.told?.card === card ? state.told : null;
        // A payment due now is being charged: the site hears "paid" from its outcome, not its schedule.
        if (ARRANGED.includes(status.state) && client.isSettled(status) && !told?.paid) {
            setState({ type: 'told', card, said: 'paid' });
            tell('checkout.paid', { reservationId: session.reservationId, last4: session.paymentMethod?.last4, state: status.state });
        }
        if (status.state === 'failed' && !told?.failed) {
            setState({ type: 'told', card, said: 'failed' });
            tell('checkout.payment_failed', { reservationId: session.reservationId, code: 'charge_failed' });
        }
        tellHeight();
    };
    await client.watchPaymentStatus(sessionId, { onUpdate: read }).catch(() => undefined);
}
/** Extras once the money is arranged: each is added to the booking's bill, and the money is read again. */
function paintExtras(allowed) {
    const extras = state.extras ?? [];
    $('extras').hidden = !(allowed && extras.length > 0);
    const select = $('extra');
    if ($('extras').hidden || select.options.length > 0)
        return;
    const currency = bookedSession().currency;
    select.replaceChildren(...extras.map((extra) => new Option(`${extra.title}: ${money(extra.amount, currency)}`, extra.code)));
}
async function addExtra() {
    clearProblems();
    $('extra-result').textContent = '';
    $('add-extra').disabled = true;
    try {
        const session = bookedSession();
        const added = await client.addExtras(session.id, [
            { code: $('extra').value, quantity: Number($('quantity').value) },
        ]);
        $('extra-result').textContent = added.items
            .map((item) => words.extraAdded(item.title, item.quantity, money(item.amount, session.currency)))
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
// ---------- start ----------
async function start() {
    putWords();
    applyTheme();
    new ResizeObserver(tellHeight).observe(document.body);
    $('close').addEventListener('click', () => tell('checkout.closed'));
    $('see-prices').addEventListener('click', () => void seePrices());
    $('month-back').addEventListener('click', () => pageMonths(-1));
    $('month-next').addEventListener('click', () => pageMonths(1));
    $('calendar').addEventListener('keydown', onCalendarKey);
    $('calendar').addEventListener('focusin', onDayFocused);
    $('plan-back').addEventListener('click', () => show('step-stay'));
    // What was said of a coupon no longer says anything of the one being typed.
    $('coupon').addEventListener('input', () => ($('coupon-said').textContent = ''));
    $('to-guest').addEventListener('click', () => show('step-guest'));
    $('guest-back').addEventListener('click', () => show('step-plan'));
    $('guest-form').addEventListener('submit', (event) => void book(event));
    $('card-form').addEventListener('submit', (event) => void pay(event));
    $('number').addEventListener('input', groupNumber);
    $('expiry').addEventListener('input', formatExpiry);
    $('another-card').addEventListener('click', () => toCard(state.status?.diagnosis?.message || words.chargeFailed));
    $('add-extra').addEventListener('click', () => void addExtra());
    $('to-bank').addEventListener('click', () => void afterCard().catch((error) => showProblem(error, 'card-error')));
    $('restart').addEventListener('click', restart);
    $('authenticate').addEventListener('click', () => {
        if (!client.openAuthentication(state.status || {}))
            $('money').textContent = words.popupBlocked;
        // The bank's answer may take longer than one watch: read the money again from this press.
        else
            void watchMoney(bookedSession().id);
    });
    if (!framedByHost()) {
        // Opened outside the site that asked for it: nothing to sell here.
        $('problem').textContent = words.cannotSell;
        $('problem').hidden = false;
        $('step-stay').hidden = true;
        return;
    }
    // Focus stays where the guest has it (the site's page) until they act in the checkout.
    try {
        await loadStay();
        tell('checkout.ready', { listingId: settings.listingId });
    }
    catch (error) {
        $('problem').textContent = words.cannotSell;
        $('problem').hidden = false;
        $('stay-error').textContent = problemOf(error).detail || messageOf(error);
    }
}
document.addEventListener('DOMContentLoaded', () => void start());
