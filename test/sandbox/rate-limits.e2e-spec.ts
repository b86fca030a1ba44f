import { startTestSandbox, type SandboxClient } from './sandbox-helpers';

describe('sandbox rate limits on /v1', () => {
  let client: SandboxClient;

  beforeAll(async () => {
    // A frozen clock: only advanceClock moves time, so the windows are deterministic.
    client = await startTestSandbox({ clock: () => 1_750_000_000_000, rateLimits: { perSecond: 3, perMinute: 5, perHour: 100 } });
  });
  afterAll(() => client.sandbox.stop());
  beforeEach(() => {
    client.control.reset();
    client.forgetToken();
  });

  it('puts X-RateLimit-Limit-* and X-RateLimit-Remaining-* on every /v1 answer', async () => {
    const first = await client.api('/v1/listings');
    expect(first.headers.get('x-ratelimit-limit-second')).toBe('3');
    expect(first.headers.get('x-ratelimit-limit-minute')).toBe('5');
    expect(first.headers.get('x-ratelimit-limit-hour')).toBe('100');
    expect(first.headers.get('x-ratelimit-remaining-second')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining-minute')).toBe('4');
    expect(first.headers.get('x-ratelimit-remaining-hour')).toBe('99');
    const missing = await client.api('/v1/listings/lst-nowhere');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-ratelimit-remaining-second')).toBe('1');
    const forbidden = await client.api('/v1/listings', { token: null });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('x-ratelimit-remaining-second')).toBe('1');
  });

  it('answers 429 with Retry-After over the per-second limit, not counting refused requests', async () => {
    for (let i = 0; i < 3; i += 1) expect((await client.api('/v1/listings')).status).toBe(200);
    const refused = await client.api('/v1/listings');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.message).toEqual(expect.any(String));
    expect(refused.headers.get('x-ratelimit-remaining-second')).toBe('0');
    expect((await client.api('/v1/listings')).status).toBe(429);
    expect(client.control.counters.rateLimited).toBe(2);

    client.control.advanceClock(1000);
    const again = await client.api('/v1/listings');
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ratelimit-remaining-minute')).toBe('1');
  });

  it('applies the per-minute window with a Retry-After in whole seconds', async () => {
    for (let i = 0; i < 5; i += 1) {
      expect((await client.api('/v1/listings')).status).toBe(200);
      client.control.advanceClock(1000);
    }
    const refused = await client.api('/v1/listings');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('55');
    client.control.advanceClock(55_000);
    expect((await client.api('/v1/listings')).status).toBe(200);
  });

  it('counts neither the token issuer nor the tokenization host', async () => {
    client.control.setRateLimits({ perSecond: 1 });
    await client.mintToken();
    await client.mintToken();
    await client.tokenize({});
    await client.tokenize({});
    expect((await client.api('/v1/listings')).status).toBe(200);
    expect((await client.api('/v1/listings')).status).toBe(429);
  });

  it('can be changed at run time and goes back to the options on reset', async () => {
    client.control.setRateLimits({ perSecond: 10 });
    expect((await client.api('/v1/listings')).headers.get('x-ratelimit-limit-second')).toBe('10');
    client.control.reset();
    client.forgetToken();
    expect((await client.api('/v1/listings')).headers.get('x-ratelimit-limit-second')).toBe('3');
  });
});
