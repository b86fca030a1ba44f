import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { upstreamRequests } from '../utils/checkout-client';
import { stay } from '../booking/booking-client';

/**
 * docs/product-spec.md §3.1: the public reads (calendar, listing summary, extras catalogue) may be
 * kept by a browser, proxy or CDN: a strong ETag, Cache-Control public with max-age and
 * stale-while-revalidate, and 304 with no body and no upstream call for a matching If-None-Match.
 * Every other checkout answer, errors of these routes included, stays no-store.
 */
describe('public reads a CDN may keep', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(2, {
      env: {
        CALENDAR_CACHE_SECONDS: '120',
        // Its nine upstream calls (public reads and one booking) spend more than the anonymous share
        // of the 15/s window (7) when they run within a second, as they do in a warm process; this
        // file is about caching, not the budget (test/upstream/budget-shares.e2e-spec.ts is).
        UPSTREAM_ANONYMOUS_SHARE: '100',
        CHECKOUT_EXTRAS: JSON.stringify([{ code: 'late-checkout', normalType: 'CF', title: 'Late checkout', amount: 40 }]),
      },
    });
  });
  afterAll(() => world.close());

  const { checkIn: from, checkOut: to } = stay(90, 20);
  const routes = [
    {
      name: 'the calendar',
      path: `/checkout/listings/lst-seaside/calendar?from=${from}&to=${to}`,
      cacheControl: 'public, max-age=1, stale-while-revalidate=120',
    },
    { name: 'a listing summary', path: '/checkout/listings/lst-seaside', cacheControl: 'public, max-age=10, stale-while-revalidate=300' },
    { name: 'the extras catalogue', path: '/checkout/extras', cacheControl: 'public, max-age=300, stale-while-revalidate=300' },
  ];

  it.each(routes)('$name carries a strong ETag, the same on every replica, and Cache-Control public', async ({ path, cacheControl }) => {
    const first = await fetch(`${world.apps[0].url}${path}`);
    const other = await fetch(`${world.apps[1].url}${path}`);
    expect([first.status, other.status]).toEqual([200, 200]);
    expect(first.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(other.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(first.headers.get('cache-control')).toBe(cacheControl);
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await first.json()).toEqual(await other.json());
  });

  it.each(routes)('$name answers a matching If-None-Match with 304, no body and no upstream call', async ({ path, cacheControl }) => {
    const kept = await fetch(`${world.apps[0].url}${path}`);
    const etag = kept.headers.get('etag') as string;
    await kept.arrayBuffer();
    const before = upstreamRequests(world);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await fetch(`${world.apps[1].url}${path}`, { headers: { 'If-None-Match': ifNoneMatch } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('cache-control')).toBe(cacheControl);
    }
    const changed = await fetch(`${world.apps[1].url}${path}`, { headers: { 'If-None-Match': '"an-answer-kept-earlier"' } });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toEqual(await (await fetch(`${world.apps[0].url}${path}`)).json());
    expect(upstreamRequests(world)).toBe(before);
  });

  it('a booking made by the service changes the calendar ETag: a kept copy is not confirmed as current', async () => {
    const path = `/checkout/listings/lst-seaside/calendar?from=${stay(130, 0).checkIn}&to=${stay(140, 0).checkIn}`;
    const kept = await fetch(`${world.apps[0].url}${path}`);
    const etag = kept.headers.get('etag') as string;
    await kept.arrayBuffer();
    const quote = await fetch(`${world.apps[0].url}/checkout/quotes`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ listingId: 'lst-seaside', ...stay(132, 3), guestsCount: 2 }),
    });
    const { id: quoteId } = (await quote.json()) as { id: string };
    const booked = await fetch(`${world.apps[0].url}/checkout/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': `cdn-${quoteId}` },
      body: JSON.stringify({ quoteId, guest: { firstName: 'Ada', lastName: 'Guest', email: `cdn-${quoteId.slice(2, 10)}@example.com` } }),
    });
    expect(booked.status).toBe(201);
    const after = await fetch(`${world.apps[0].url}${path}`, { headers: { 'If-None-Match': etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
  });

  it('answers an error of these routes no-store', async () => {
    const unknown = await fetch(`${world.apps[0].url}/checkout/listings/lst-nowhere`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('cache-control')).toBe('no-store');
    expect(unknown.headers.get('etag')).toBeNull();
    const bad = await fetch(`${world.apps[0].url}/checkout/listings/lst-seaside/calendar?from=nope&to=${to}`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('cache-control')).toBe('no-store');
  });
});
