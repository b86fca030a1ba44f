// The reference integration of the checkout API: plain browser JavaScript, no build step.
// Every call goes to this service only; the card goes to the service, which tokenizes it upstream.
'use strict';

const $ = (id) => document.getElementById(id);
const state = { session: null, extras: [] };

/** Calls the checkout API; resolves the JSON body or throws the problem details (RFC 9457). */
async function api(method, path, body, idempotencyKey) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw Object.assign(new Error(data.detail || `HTTP ${response.status}`), { problem: data });
  return data;
}

function setProgress(step) {
  const order = ['session', 'card', '3ds', 'done'];
  for (const item of $('progress').children) {
    const index = order.indexOf(item.dataset.step);
    item.classList.toggle('active', item.dataset.step === step);
    item.classList.toggle('complete', index < order.indexOf(step));
  }
}

function show(section) {
  for (const id of ['step-session', 'step-card', 'step-done']) $(id).hidden = id !== section;
}

function money(amount, currency) {
  return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount);
}

function clearFieldErrors() {
  for (const element of document.querySelectorAll('.field-error')) element.textContent = '';
  for (const input of document.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
}

/** Shows a problem's detail, and each field error next to its field when there is one. */
function showProblem(error, generalTarget) {
  const problem = error.problem || {};
  const unplaced = [];
  for (const fieldError of problem.errors || []) {
    const target = document.querySelector(`.field-error[data-for="${fieldError.field}"]`);
    const input = document.querySelector(`[name="${fieldError.field}"]`);
    if (target) target.textContent = fieldError.message;
    else unplaced.push(fieldError.message);
    if (input) input.setAttribute('aria-invalid', 'true');
  }
  $(generalTarget).textContent = [problem.detail || error.message, ...unplaced].join(' ');
}

async function loadFixtures() {
  const fixtures = await api('GET', '/demo/fixtures');
  state.extras = fixtures.extras;
  const select = $('reservation');
  for (const reservation of fixtures.reservations) {
    const option = new Option(`${reservation.reservationId} — ${reservation.guestEmail} (${reservation.purpose})`, reservation.reservationId);
    option.dataset.email = reservation.guestEmail;
    select.add(option);
  }
  select.add(new Option('A new demo reservation (fresh, unpaid)', 'new'));
  select.addEventListener('change', () => {
    $('email').value = select.selectedOptions[0].dataset.email || '';
  });
  select.value = 'new';
  for (const card of fixtures.cards) {
    const item = document.createElement('li');
    const code = document.createElement('code');
    code.textContent = card.number;
    code.title = 'Use this card';
    code.addEventListener('click', () => { $('number').value = card.number; });
    item.append(code, ` — ${card.description}`);
    $('test-cards').append(item);
  }
}

async function startCheckout() {
  $('session-error').textContent = '';
  $('start').disabled = true;
  try {
    let reservationId = $('reservation').value;
    if (reservationId === 'new') {
      const created = await api('POST', '/demo/reservations', {});
      reservationId = created.reservationId;
      $('email').value = created.guestEmail;
    }
    state.session = await api('POST', '/checkout/sessions', { reservationId, email: $('email').value });
    $('amount').textContent = money(state.session.amount, state.session.currency);
    setProgress('card');
    show('step-card');
  } catch (error) {
    showProblem(error, 'session-error');
  } finally {
    $('start').disabled = false;
  }
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
    // One key per attempt: a retry of this very request (e.g. after a network error) reuses it.
    const session = await api('POST', `/checkout/sessions/${state.session.id}/payment-method`, cardBody(), crypto.randomUUID());
    if (session.status === 'requires_action' && session.nextAction) {
      setProgress('3ds');
      window.location.assign(session.nextAction.redirectUrl);
      return;
    }
    history.replaceState(null, '', `/demo?session=${encodeURIComponent(session.id)}&status=${session.status}`);
    await showResult(session.id);
  } catch (error) {
    showProblem(error, 'card-error');
  } finally {
    $('pay').disabled = false;
  }
}

/** The return page after 3-D Secure (this page is CHECKOUT_RETURN_URL in sandbox mode). */
async function showResult(sessionId) {
  setProgress('done');
  show('step-done');
  try {
    state.session = await api('GET', `/checkout/sessions/${encodeURIComponent(sessionId)}`);
  } catch (error) {
    showProblem(error, 'final-error');
    return;
  }
  const session = state.session;
  const status = $('final-status');
  status.className = `status ${session.status}`;
  status.textContent = session.status === 'succeeded'
    ? `Succeeded — card ending ${session.paymentMethod.last4} attached for ${money(session.amount, session.currency)}`
    : `Status: ${session.status}`;
  $('final-error').textContent = session.lastError ? session.lastError.message : '';
  $('retry').hidden = session.status !== 'failed';
  $('amount').textContent = money(session.amount, session.currency);
  const diagnostics = await api('GET', `/checkout/sessions/${encodeURIComponent(sessionId)}/payment-status`).catch((error) => error.problem);
  $('diagnostics').textContent = JSON.stringify(diagnostics, null, 2);
  $('extras').hidden = session.status !== 'succeeded' || state.extras.length === 0;
  $('extra').replaceChildren(...state.extras.map((extra) => new Option(`${extra.title} — ${money(extra.amount, session.currency)}`, extra.code)));
}

async function addExtra() {
  $('extra-error').textContent = '';
  $('extra-result').textContent = '';
  try {
    const quantity = Number($('quantity').value);
    const added = await api('POST', `/checkout/sessions/${state.session.id}/extras`, { items: [{ code: $('extra').value, quantity }] }, crypto.randomUUID());
    $('extra-result').textContent = added.items.map((item) => `Added: ${item.title} × ${item.quantity} = ${money(item.amount, state.session.currency)}`).join('; ');
  } catch (error) {
    showProblem(error, 'extra-error');
  }
}

document.addEventListener('DOMContentLoaded', async () => {
  $('exp_year').value = String(new Date().getFullYear() + 2);
  $('start').addEventListener('click', startCheckout);
  $('card-form').addEventListener('submit', pay);
  $('add-extra').addEventListener('click', addExtra);
  $('retry').addEventListener('click', () => { setProgress('card'); show('step-card'); });
  await loadFixtures().catch((error) => showProblem(error, 'session-error'));
  const returned = new URLSearchParams(window.location.search).get('session');
  if (returned) await showResult(returned);
  else setProgress('session');
});
