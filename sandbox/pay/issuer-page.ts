/**
 * The card issuer's 3DS page behind threeDS.authURL: "Authenticate" or "Fail", then the browser is
 * sent to successURL / failureURL exactly as the tokenization request gave them (docs/upstream-seed.md §3).
 */
import { htmlAnswer, redirectAnswer, type SandboxAnswer } from '../http/answer';
import type { RequestContext } from '../http/host-server';
import type { CardTokenRecord } from '../state/records';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function pendingToken(ctx: RequestContext): CardTokenRecord | undefined {
  const token = ctx.runtime.store.cardTokens.get(ctx.params.tokenId);
  return token?.threeDS.required ? token : undefined;
}

function unknownAuthentication(): SandboxAnswer {
  return htmlAnswer(
    404,
    '<!doctype html><html><head><meta charset="utf-8"><title>Not found</title></head>' +
      '<body><h1>Unknown authentication request</h1></body></html>',
  );
}

export function showIssuerPage(ctx: RequestContext): SandboxAnswer {
  const token = pendingToken(ctx);
  if (!token) return unknownAuthentication();
  const merchant = ctx.runtime.store.providerByPaymentProviderId(token.paymentProviderId)?.accountName ?? 'the merchant';
  const amount = `${token.threeDS.amount.toFixed(2)} ${token.threeDS.currency}`;
  const action = (name: string) => `/3ds/${encodeURIComponent(token._id)}/${name}`;
  return htmlAnswer(
    200,
    `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sandbox issuer — 3D Secure</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}
form{display:inline-block;margin-right:.5rem}button{font-size:1rem;padding:.5rem 1.25rem}</style></head>
<body>
<h1>Sandbox issuer — 3D Secure</h1>
<p>Confirm a payment of <strong>${escapeHtml(amount)}</strong> to <strong>${escapeHtml(merchant)}</strong>
with the ${escapeHtml(token.card.brand)} card ending in <strong>${escapeHtml(token.card.last4)}</strong>.</p>
<p>This page is the sandbox's stand-in for the card issuer; no real bank is involved.</p>
<form method="post" action="${action('authenticate')}"><button type="submit" id="authenticate">Authenticate</button></form>
<form method="post" action="${action('fail')}"><button type="submit" id="fail">Fail</button></form>
</body>
</html>`,
  );
}

/** The first decision is final: pressing again (or the other button) repeats the first outcome's redirect. */
export function recordIssuerDecision(ctx: RequestContext): SandboxAnswer {
  const token = pendingToken(ctx);
  if (!token) return unknownAuthentication();
  if (token.threeDS.outcome === 'pending') {
    token.threeDS.outcome = ctx.params.action === 'authenticate' ? 'authenticated' : 'failed';
  }
  const target = token.threeDS.outcome === 'authenticated' ? token.threeDS.successURL : token.threeDS.failureURL;
  if (target === undefined) return htmlAnswer(200, '');
  return redirectAnswer(target);
}
