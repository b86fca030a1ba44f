/**
 * A stand-in for the platform's payment-form SDK, served where the platform serves it
 * (`/tokenization/v2/init.js`), with its published interface: `window.guestyTokenization` with
 * render, submit → {_id}, validate, destroy. The card fields live in a frame of the pay host, which
 * tokenizes them itself: the page that renders the form never holds the card.
 */
import { htmlAnswer, type SandboxAnswer } from '../http/answer';
import type { RequestContext } from '../http/host-server';

const SDK_SCRIPT = `(() => {
  'use strict';
  const origin = new URL(document.currentScript.src).origin;
  let frame = null;
  const ask = (message) =>
    new Promise((resolve, reject) => {
      if (!frame) return reject(new Error('The card form is not rendered.'));
      const id = Math.random().toString(36).slice(2);
      const listen = (event) => {
        if (event.origin !== origin || event.source !== frame.contentWindow || !event.data || event.data.id !== id) return;
        window.removeEventListener('message', listen);
        if (event.data.error) reject(new Error(event.data.error));
        else resolve(event.data.result);
      };
      window.addEventListener('message', listen);
      frame.contentWindow.postMessage({ ...message, id }, origin);
    });
  window.guestyTokenization = {
    render: ({ containerId, providerId, lang }) =>
      new Promise((resolve, reject) => {
        const container = document.getElementById(containerId);
        if (!container) return reject(new Error('No element #' + containerId));
        frame = document.createElement('iframe');
        frame.title = 'Card details';
        frame.src = origin + '/tokenization/v2/form?providerId=' + encodeURIComponent(providerId) + '&lang=' + encodeURIComponent(lang || 'en');
        frame.style.width = '100%';
        frame.style.height = '420px';
        frame.style.border = '0';
        frame.onload = () => resolve();
        container.replaceChildren(frame);
      }),
    submit: (payload) => ask({ type: 'submit', payload }),
    validate: () => ask({ type: 'validate' }),
    destroy: () => {
      if (frame) frame.remove();
      frame = null;
      return Promise.resolve();
    },
  };
})();
`;

export function sdkScript(): SandboxAnswer {
  return { status: 200, headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-store' }, body: SDK_SCRIPT };
}

const FIELDS: [id: string, label: string, autocomplete: string][] = [
  ['number', 'Card number', 'cc-number'],
  ['expiry', 'Expiry (MM/YY)', 'cc-exp'],
  ['cvc', 'Security code', 'cc-csc'],
  ['name', 'Name on card', 'cc-name'],
  ['line1', 'Street', 'address-line1'],
  ['postal_code', 'Zip code', 'postal-code'],
  ['city', 'City', 'address-level2'],
  ['country', 'Country (2 letters)', 'country'],
];

/** The card form the SDK frames: it answers the page's submit with the token it made, or why not. */
export function sdkForm(ctx: RequestContext): SandboxAnswer {
  const inputs = FIELDS.map(
    ([id, label, autocomplete]) =>
      `<p><label for="${id}">${label}</label><br><input id="${id}" autocomplete="${autocomplete}" style="width:100%;padding:.4rem"></p>`,
  ).join('\n');
  // A value in an inline script: '<' escaped, so no text of the address can close the script.
  const providerId = JSON.stringify(ctx.url.searchParams.get('providerId') ?? '').replace(/</g, '\\u003c');
  return htmlAnswer(
    200,
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Card details (sandbox payment form)</title>
<style>body{font-family:system-ui,sans-serif;margin:0;padding:.25rem}label{font-weight:600}</style></head>
<body><form id="card" novalidate>
${inputs}
</form>
<script>
  const value = (id) => document.getElementById(id).value.trim();
  window.addEventListener('message', async (event) => {
    if (event.source !== window.parent || !event.data) return;
    const { id, type, payload } = event.data;
    const answer = (data) => window.parent.postMessage({ id, ...data }, event.origin);
    if (type === 'validate') return answer({ result: undefined });
    if (type !== 'submit') return;
    const [month = '', year = ''] = value('expiry').split('/').map((part) => part.trim());
    const body = {
      paymentProviderId: ${providerId},
      listingId: payload.listingId,
      card: { number: value('number').replace(/\\D/g, ''), exp_month: month.padStart(2, '0'), exp_year: year.length === 2 ? '20' + year : year, cvc: value('cvc') },
      billing_details: { name: value('name'), address: { line1: value('line1'), city: value('city'), postal_code: value('postal_code'), country: value('country').toUpperCase() } },
      threeDS: { amount: payload.amount, currency: payload.currency },
    };
    const response = await fetch('/api/tokenize/v2', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const result = await response.json();
    answer(response.ok ? { result: { _id: result._id } } : { error: result.message || 'The card could not be used.' });
  });
</script></body></html>`,
  );
}
