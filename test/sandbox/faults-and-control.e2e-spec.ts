import { startTestSandbox, tokenizeBody, type SandboxClient } from './sandbox-helpers';

const item = { title: 'Pet fee', amount: 30, normalType: 'AFE', secondIdentifier: 'PET' };

describe('sandbox fault knobs, counters and reset', () => {
  let client: SandboxClient;

  beforeAll(async () => {
    client = await startTestSandbox();
  });
  afterAll(() => client.sandbox.stop());
  beforeEach(() => {
    client.control.reset();
    client.forgetToken();
  });

  const balance = async () => (await client.api('/v1/reservations/res-unpaid')).body.money.balanceDue as number;
  const addItem = () => client.api('/v1/invoice-items/reservation/res-unpaid', { body: item });
  const waitForArrival = async () => {
    while (!client.control.counters.requests.invoiceItems) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  it('forces a status before handling, so a forced 500 performs nothing', async () => {
    client.control.forceStatus('invoiceItems', 500, { times: 1 });
    const forced = await addItem();
    expect(forced.status).toBe(500);
    expect(forced.headers.get('x-request-id')).toBeTruthy();
    expect(await balance()).toBe(594);
    expect((await addItem()).status).toBe(200);
    expect(await balance()).toBe(624);
  });

  it('forces a status with a given body and headers until cleared', async () => {
    client.control.forceStatus('reservation', 503, { body: { message: 'Service Unavailable' }, headers: { 'Retry-After': '7' } });
    for (let i = 0; i < 2; i += 1) {
      const answer = await client.api('/v1/reservations/res-unpaid');
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({ message: 'Service Unavailable' });
      expect(answer.headers.get('retry-after')).toBe('7');
    }
    client.control.clearFaults();
    expect((await client.api('/v1/reservations/res-unpaid')).status).toBe(200);
  });

  it('can make a valid token look permanently forbidden', async () => {
    client.control.forceStatus('listings', 403, {
      body: { message: "You don't have permission to access, please contact Guesty support" },
    });
    expect((await client.api('/v1/listings')).status).toBe(403);
    expect((await client.api('/v1/listings/lst-city')).status).toBe(200);
  });

  it('delays a route', async () => {
    client.control.setRouteDelay('tokenize', 150);
    const started = Date.now();
    expect((await client.tokenize(tokenizeBody({}))).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('drops the connection before handling: nothing is done', async () => {
    client.control.dropConnection('invoiceItems', { times: 1 });
    await expect(addItem()).rejects.toThrow();
    expect(await balance()).toBe(594);
    expect(client.control.requestLog.filter((entry) => entry.route === 'invoiceItems')).toEqual([
      expect.objectContaining({ method: 'POST', status: 0 }),
    ]);
  });

  it('drops the connection after handling: the write happened, only the answer is lost', async () => {
    client.control.dropConnection('invoiceItems', { times: 1, afterHandling: true });
    await expect(addItem()).rejects.toThrow();
    expect(await balance()).toBe(624);
    expect((await addItem()).status).toBe(200);
  });

  it('carries a slow write out after the caller gave up, then answers late', async () => {
    client.control.slowWrite('invoiceItems', { actAfterMs: 300, answerAfterMs: 600, times: 1 });
    const acted = client.control.whenActed('invoiceItems');
    const arrived = client.control.now();
    const pending = addItem();
    const [done] = await acted;
    expect(done).toEqual(expect.objectContaining({ route: 'invoiceItems', method: 'POST', status: 200 }));
    expect(done.time - arrived).toBeGreaterThanOrEqual(290);
    expect(await balance()).toBe(624);
    expect((await pending).status).toBe(200);
    expect((await addItem()).status).toBe(200);
  });

  it('carries a slow write out and then drops its answer', async () => {
    client.control.slowWrite('invoiceItems', { actAfterMs: 100, dropAnswer: true, times: 1 });
    const acted = client.control.whenActed('invoiceItems');
    await expect(addItem()).rejects.toThrow();
    await acted;
    expect(await balance()).toBe(624);
    expect(client.control.requestLog.filter((entry) => entry.route === 'invoiceItems')).toEqual([
      expect.objectContaining({ method: 'POST', status: 0 }),
    ]);
  });

  it('carries a slow write out although its caller aborted at its own timeout', async () => {
    client.control.slowWrite('invoiceItems', { actAfterMs: 400, answerAfterMs: 800, times: 1 });
    const token = await client.mintToken();
    const acted = client.control.whenActed('invoiceItems');
    const aborted = await fetch(`${client.urls.apiUrl}/v1/invoice-items/reservation/res-unpaid`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(item),
      signal: AbortSignal.timeout(100),
    }).catch((error: unknown) => error);
    expect(String(aborted)).toMatch(/abort|timeout/i);
    expect(await balance()).toBe(594);
    await acted;
    expect(await balance()).toBe(624);
    // Its late answer goes to a caller that left; it is logged all the same, before the next test.
    while (!client.control.requestLog.some((entry) => entry.route === 'invoiceItems'))
      await new Promise((resolve) => setTimeout(resolve, 5));
  });

  it('lets the test decide when a slow write acts', async () => {
    client.control.slowWrite('invoiceItems', { actAfterMs: 60_000, answerAfterMs: 60_100, times: 1 });
    const acted = client.control.whenActed('invoiceItems');
    const pending = addItem();
    await waitForArrival();
    expect(await balance()).toBe(594);
    expect(client.control.actNow('invoiceItems')).toBe(1);
    await acted;
    expect(await balance()).toBe(624);
    expect((await pending).status).toBe(200);
    expect(client.control.actNow('invoiceItems')).toBe(0);
  });

  it('refuses a slow write that would answer before it acts', () => {
    expect(() => client.control.slowWrite('invoiceItems', { actAfterMs: 500, answerAfterMs: 100 })).toThrow(/answers after it acts/);
    expect(() => client.control.slowWrite('nope' as never, { actAfterMs: 1 })).toThrow(/Unknown sandbox route/);
  });

  it('counts requests per route, 429s and tokens, and logs each request', async () => {
    client.control.setRateLimits({ perSecond: 2 });
    await client.api('/v1/listings');
    await client.api('/v1/listings/lst-city');
    await client.api('/v1/listings');
    await client.tokenize(tokenizeBody({}));
    const counters = client.control.counters;
    expect(counters).toEqual({
      tokensMinted: 1,
      requests: { token: 1, listings: 2, listing: 1, tokenize: 1 },
      rateLimited: 1,
      tokenizeWithAuthorization: 0,
    });
    expect(client.control.requestLog.map((entry) => [entry.route, entry.status])).toEqual([
      ['token', 200],
      ['listings', 200],
      ['listing', 200],
      ['listings', 429],
      ['tokenize', 200],
    ]);
    expect(client.control.requestLog[0].time).toEqual(expect.any(Number));
  });

  it('resets fixtures, tokens, counters and faults', async () => {
    const oldToken = await client.mintToken();
    await addItem();
    client.control.forceStatus('listings', 500);
    client.control.setListingProvider('lst-seaside', 'pp-city');
    client.control.advanceClock(1000);
    client.control.reset();
    expect(client.control.counters).toEqual({ tokensMinted: 0, requests: {}, rateLimited: 0, tokenizeWithAuthorization: 0 });
    expect(client.control.requestLog).toEqual([]);
    expect((await client.api('/v1/listings', { token: oldToken })).status).toBe(403);
    client.forgetToken();
    expect(await balance()).toBe(594);
    expect((await client.api('/v1/listings')).status).toBe(200);
    const provider = await client.api('/v1/payment-providers/provider-by-listing?listingId=lst-seaside');
    expect(provider.body.paymentProviderId).toBe('pp-seaside');
  });

  it('gives every answer of both hosts a fresh X-Request-Id', async () => {
    const ids = [
      (await client.api('/v1/listings')).headers.get('x-request-id'),
      (await client.api('/v1/listings')).headers.get('x-request-id'),
      (await client.tokenize({})).headers.get('x-request-id'),
      (await fetch(`${client.urls.payUrl}/nowhere`)).headers.get('x-request-id'),
    ];
    expect(new Set(ids).size).toBe(4);
    expect(ids.every(Boolean)).toBe(true);
  });

  it('refuses knobs aimed at unknown routes', () => {
    expect(() => client.control.forceStatus('nope' as never, 500)).toThrow(/Unknown sandbox route/);
    expect(() => client.control.setListingProvider('lst-city', 'pp-nowhere')).toThrow();
  });
});

describe('sandbox instances', () => {
  it('keep their own state, add fixed latency, and stop with keep-alive connections open', async () => {
    const slow = await startTestSandbox({ latencyMs: 100 });
    const other = await startTestSandbox();
    try {
      expect(slow.urls.authUrl).toBe(slow.urls.apiUrl);
      expect(slow.urls.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(slow.urls.payUrl).not.toBe(slow.urls.apiUrl);
      slow.control.setListingProvider('lst-city', 'pp-seaside');
      const started = Date.now();
      const there = await slow.api('/v1/payment-providers/provider-by-listing?listingId=lst-city');
      expect(Date.now() - started).toBeGreaterThanOrEqual(90);
      expect(there.body.paymentProviderId).toBe('pp-seaside');
      const here = await other.api('/v1/payment-providers/provider-by-listing?listingId=lst-city');
      expect(here.body.paymentProviderId).toBe('pp-city');
    } finally {
      await Promise.all([slow.sandbox.stop(), other.sandbox.stop()]);
    }
    await expect(fetch(`${other.urls.apiUrl}/v1/listings`)).rejects.toThrow();
  });

  it('stops promptly while a delayed request is in flight', async () => {
    const sandbox = await startTestSandbox();
    sandbox.control.setRouteDelay('tokenize', 10_000);
    const pending = sandbox.tokenize(tokenizeBody({})).catch((error: unknown) => error);
    while (!sandbox.control.counters.requests.tokenize) await new Promise((resolve) => setTimeout(resolve, 5));
    await sandbox.sandbox.stop();
    // The delayed request's connection was cut: a stop that waited for the delay would have answered it.
    expect(String(await pending)).toMatch(/fetch failed/);
  });
});
