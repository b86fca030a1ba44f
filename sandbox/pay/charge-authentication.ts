/**
 * The issuer's page behind a charge's authenticationRequiredData.authenticationUrl: the guest
 * completes or fails the authentication of a PENDING_AUTH payment; the platform then charges it
 * (SUCCEEDED) or records the failure (FAILED), and sends its webhook.
 */
import { htmlAnswer, type SandboxAnswer } from '../http/answer';
import type { RequestContext } from '../http/host-server';
import { completeAuthentication, findPayment } from '../state/charging';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(status: number, title: string, body: string): SandboxAnswer {
  return htmlAnswer(
    status,
    `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
form{display:inline-block;margin-right:.5rem}button{font-size:1rem;padding:.5rem 1.25rem}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
  );
}

export function showChargeAuthentication(ctx: RequestContext): SandboxAnswer {
  const found = findPayment(ctx.runtime.store, ctx.params.paymentId);
  if (!found) return page(404, 'Not found', '<p>Unknown authentication request.</p>');
  const { payment, reservation } = found;
  if (payment.status !== 'PENDING_AUTH') {
    const outcome = payment.status === 'SUCCEEDED' ? 'was authenticated and paid' : 'is no longer waiting for authentication';
    return page(200, 'Sandbox issuer — payment authentication', `<p id="result">This payment ${outcome}. You can close this page.</p>`);
  }
  const merchant = ctx.runtime.store.currentProviderOf(reservation.listingId)?.accountName ?? 'the merchant';
  const card = ctx.runtime.store.paymentMethods.get(payment.paymentMethodId)?.card;
  const action = (name: string) => `/charges/${encodeURIComponent(payment._id)}/${name}`;
  return page(
    200,
    'Sandbox issuer — payment authentication',
    `<p>Confirm a payment of <strong>${escapeHtml(`${payment.amount.toFixed(2)} ${payment.currency}`)}</strong> to
<strong>${escapeHtml(merchant)}</strong> with the card ending in <strong>${escapeHtml(card?.last4 ?? '????')}</strong>.</p>
<p>This page is the sandbox's stand-in for the card issuer; no real bank is involved.</p>
<form method="post" action="${action('authenticate')}"><button type="submit" id="authenticate">Authenticate</button></form>
<form method="post" action="${action('fail')}"><button type="submit" id="fail">Fail</button></form>`,
  );
}

/** The first decision is final; the guest goes back to the site, which asks the service what happened. */
export function recordChargeAuthentication(ctx: RequestContext): SandboxAnswer {
  const { runtime } = ctx;
  const event = completeAuthentication(runtime.store, ctx.params.paymentId, ctx.params.action === 'authenticate', ctx.now);
  if (event) runtime.notify(event);
  const found = findPayment(runtime.store, ctx.params.paymentId);
  if (!found) return page(404, 'Not found', '<p>Unknown authentication request.</p>');
  const result = found.payment.status === 'SUCCEEDED' ? 'Payment authenticated.' : 'Authentication failed; the payment was not made.';
  return page(
    200,
    'Sandbox issuer — payment authentication',
    `<p id="result">${result} You can close this page and return to the booking site.</p>`,
  );
}
