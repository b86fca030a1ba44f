import { CARDS, cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

const RETURN_URL = 'http://localhost:8080/checkout/done';

/** The issuer page's buttons post to these; the sandbox answers 303 to successURL / failureURL. */
async function pressIssuerButton(authUrl: string, button: 'authenticate' | 'fail'): Promise<string> {
  const page = await fetch(authUrl);
  expect(await page.text()).toMatch(/Authenticate/);
  const pressed = await fetch(`${authUrl}/${button}`, { method: 'POST', redirect: 'manual' });
  expect(pressed.status).toBe(303);
  return pressed.headers.get('location')!;
}

/** Follows a return URL on the given replica, as the browser would, without following the 303. */
async function land(returnUrl: string, replicaUrl: string, method: 'GET' | 'POST' = 'GET'): Promise<URL> {
  const onReplica = new URL(returnUrl);
  const replica = new URL(replicaUrl);
  onReplica.host = replica.host;
  const answer = await fetch(onReplica, {
    method,
    redirect: 'manual',
    ...(method === 'POST' ? { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'PaRes=abc' } : {}),
  });
  expect(answer.status).toBe(303);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
  return new URL(answer.headers.get('location')!);
}

describe('3-D Secure', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(2, { env: { CHECKOUT_RETURN_URL: RETURN_URL }, sandbox: { paymentVisibilityDelayMs: 0 } });
  });

  afterAll(() => world.close());

  const site = (index = 0) => checkoutClient(world.apps[index].url);

  async function sessionNeedingAction() {
    const reservation = freshReservation(world, 410);
    const created = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    const submitted = await site(0).submit(created.body.id, cardBody(CARDS.threeDs)).expect(200);
    expect(submitted.body).toMatchObject({
      status: 'requires_action',
      nextAction: { type: 'redirect', redirectUrl: expect.stringContaining(world.sandbox.urls.payUrl) },
    });
    return { sessionId: created.body.id as string, authUrl: submitted.body.nextAction.redirectUrl as string, reservation };
  }

  it('passes the issuer page, lands on another replica, attaches once, and sends the browser to the site', async () => {
    const { sessionId, authUrl, reservation } = await sessionNeedingAction();
    const successUrl = await pressIssuerButton(authUrl, 'authenticate');
    expect(successUrl).toContain(`/checkout/3ds/${sessionId}/success?state=`);
    const landed = await land(successUrl, world.apps[1].url);
    expect(`${landed.origin}${landed.pathname}`).toBe(RETURN_URL);
    expect(Object.fromEntries(landed.searchParams)).toEqual({ session: sessionId, status: 'succeeded' });
    const session = await site(0).getSession(sessionId).expect(200);
    expect(session.body).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '3220' } });
    expect(session.body.nextAction).toBeUndefined();

    // A reload, on either replica: nothing is attached twice.
    const methodsBefore = world.sandbox.control.getPaymentMethods(reservation.guestId).length;
    const reloaded = await land(successUrl, world.apps[0].url);
    expect(reloaded.searchParams.get('status')).toBe('succeeded');
    expect(world.sandbox.control.getPaymentMethods(reservation.guestId).length).toBe(methodsBefore);
  });

  it('records a failed authentication, then a second card succeeds', async () => {
    const { sessionId, authUrl } = await sessionNeedingAction();
    const failureUrl = await pressIssuerButton(authUrl, 'fail');
    const landed = await land(failureUrl, world.apps[0].url, 'POST');
    expect(landed.searchParams.get('status')).toBe('failed');
    const failed = await site(1).getSession(sessionId).expect(200);
    expect(failed.body).toMatchObject({ status: 'failed', lastError: { code: 'authentication_failed' } });
    await site(1)
      .submit(sessionId, cardBody(CARDS.noThreeDs))
      .expect(200)
      .expect((res) => expect(res.body.status).toBe('succeeded'));
  });

  it("changes nothing for a forged, absent or other session's state, and never tells a session awaiting its return failed", async () => {
    const first = await sessionNeedingAction();
    const second = await sessionNeedingAction();
    const secondSuccess = await pressIssuerButton(second.authUrl, 'authenticate');
    const stolenState = new URL(secondSuccess).searchParams.get('state')!;
    const base = world.apps[0].url;
    // The first session still waits for its own return: `processing` sends the page to read it. No session: failed.
    for (const [url, told] of [
      [`${base}/checkout/3ds/${first.sessionId}/success?state=${'A'.repeat(32)}`, 'processing'],
      [`${base}/checkout/3ds/${first.sessionId}/success`, 'processing'],
      [`${base}/checkout/3ds/${first.sessionId}/success?state=${stolenState}&extra=1`, 'processing'],
      [`${base}/checkout/3ds/cs_unknown/success?state=${stolenState}`, 'failed'],
    ]) {
      const landed = await land(url, base);
      expect(landed.searchParams.get('status')).toBe(told);
      expect(`${landed.origin}${landed.pathname}`).toBe(RETURN_URL);
    }
    await site(0)
      .getSession(first.sessionId)
      .expect(200)
      .expect((res) => expect(res.body.status).toBe('requires_action'));
    // The state taken by a forged call is gone: even the real return can no longer attach it.
    const second2 = await site(0).getSession(second.sessionId).expect(200);
    expect(second2.body.status).toBe('requires_action');
  });

  it('a return that cannot get the reservation from another writer answers processing, and its state still attaches the card later', async () => {
    const { sessionId, authUrl, reservation } = await sessionNeedingAction();
    const successUrl = await pressIssuerButton(authUrl, 'authenticate');
    // Another session on the reservation holds its writes while its tokenization hangs, past the return's wait.
    const other = await site(0).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    world.sandbox.control.setRouteDelay('tokenize', 60_000);
    const tokenizing = () => world.sandbox.control.counters.requests.tokenize ?? 0;
    const before = tokenizing();
    const otherAnswer = site(0)
      .submit(other.body.id, cardBody(CARDS.threeDs))
      .then((res) => res.status);
    await waitUntil(() => Promise.resolve(tokenizing() > before), 10_000, 'the other submission to reach the tokenization host');
    const busy = await land(successUrl, world.apps[1].url);
    expect(busy.searchParams.get('status')).toBe('processing');
    expect(world.sandbox.control.getPaymentMethods(reservation.guestId)).toHaveLength(0);
    await otherAnswer;
    world.sandbox.control.clearFaults();
    // The browser's reload with the same state attaches the card: the busy return spent nothing.
    const again = await land(successUrl, world.apps[0].url);
    expect(again.searchParams.get('status')).toBe('succeeded');
    await site(1)
      .getSession(sessionId)
      .expect(200)
      .expect((res) => expect(res.body).toMatchObject({ status: 'succeeded', paymentMethod: { last4: '3220' } }));
    expect(world.sandbox.control.getPaymentMethods(reservation.guestId)).toHaveLength(1);
  });

  it('sends a return nowhere but the configured site address', async () => {
    const { sessionId } = await sessionNeedingAction();
    const landed = await land(
      `${world.apps[0].url}/checkout/3ds/${sessionId}/failure?state=x&returnUrl=https://evil.example.net/`,
      world.apps[0].url,
    );
    expect(landed.origin).toBe('http://localhost:8080');
  });

  it('counts 3-D Secure outcomes and session transitions in /metrics', async () => {
    const scrape = async () => (await Promise.all(world.apps.map(async (app) => (await fetch(`${app.url}/metrics`)).text()))).join('\n');
    const total = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].reduce((sum, match) => sum + Number(match[1]), 0);
    const text = await scrape();
    expect(total(text, /three_ds_returns_total\{outcome="succeeded"\} (\d+)/g)).toBeGreaterThanOrEqual(1);
    expect(total(text, /three_ds_returns_total\{outcome="failed"\} (\d+)/g)).toBeGreaterThanOrEqual(1);
    expect(total(text, /three_ds_returns_total\{outcome="refused"\} (\d+)/g)).toBeGreaterThanOrEqual(4);
    expect(total(text, /checkout_session_transitions_total\{status="requires_action"\} (\d+)/g)).toBeGreaterThanOrEqual(4);
    expect(total(text, /checkout_session_transitions_total\{status="succeeded"\} (\d+)/g)).toBeGreaterThanOrEqual(2);
  });
});
