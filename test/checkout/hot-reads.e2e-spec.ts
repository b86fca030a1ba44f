import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { upstreamRequests } from '../utils/checkout-client';
import { stay } from '../booking/booking-client';

const SITE = 'https://site.example';
let client = 0;
/** A client address of its own for each request, where the read allowance is not what is tested. */
const anyClient = () => ({ 'X-Forwarded-For': `198.51.100.${(client++ % 250) + 1}` });

/** Everything a site or a CDN sees of an answer but the date and the request's own id. */
async function seen(answer: Response): Promise<{ status: number; headers: [string, string][]; body: string }> {
  const headers = [...answer.headers.entries()].filter(([name]) => name !== 'date' && name !== 'x-request-id').sort();
  return { status: answer.status, headers, body: await answer.text() };
}

/**
 * A public read this replica holds (a listing summary, calendar months) is answered from its own copy
 * before the framework sees the request (docs/product-spec.md §3.1): the same answer, header for header,
 * as the route gives, and not counted against the client's read allowance, since it costs no upstream call.
 */
describe('public reads answered from the replica’s own copy', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, {
      env: { CORS_ORIGINS: SITE, CALENDAR_CACHE_SECONDS: '120', CHECKOUT_IP_READ_LIMIT: '4/m', TRUST_PROXY: '1' },
    });
  });
  afterAll(() => world.close());

  const { checkIn: from, checkOut: to } = stay(90, 20);
  const routes = [
    { name: 'a listing summary', path: '/checkout/listings/lst-seaside' },
    { name: 'the calendar', path: `/checkout/listings/lst-city/calendar?from=${from}&to=${to}` },
  ];

  it.each(routes)('$name answers as its route does: body, ETag, Cache-Control, CORS, security headers, request id', async ({ path }) => {
    const url = `${world.apps[0].url}${path}`;
    for (const headers of [{ Origin: SITE }, { Origin: 'https://elsewhere.example' }, {}]) {
      const first = await fetch(url, { headers: { ...headers, ...anyClient(), 'X-Request-Id': 'site-trace-1' } });
      const again = await fetch(url, { headers: { ...headers, ...anyClient(), 'X-Request-Id': 'site-trace-2' } });
      expect([first.headers.get('x-request-id'), again.headers.get('x-request-id')]).toEqual(['site-trace-1', 'site-trace-2']);
      expect(await seen(again)).toEqual(await seen(first));
    }
    const etag = (await fetch(url, { headers: anyClient() })).headers.get('etag') as string;
    const kept = await fetch(url, { headers: { 'If-None-Match': etag, Origin: SITE, ...anyClient() } });
    expect(kept.status).toBe(304);
    expect(kept.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(await kept.text()).toBe('');
  });

  it('serves a summary it holds to a client past its read allowance, with no upstream call', async () => {
    const read = (listingId: string) =>
      fetch(`${world.apps[0].url}/checkout/listings/${listingId}`, { headers: { 'X-Forwarded-For': '203.0.113.9' } });
    // One read through the route fills the replica's copy (and counts); the allowance is 4 a minute.
    expect((await read('lst-mountain')).status).toBe(200);
    const before = upstreamRequests(world);
    const answers = [];
    for (let i = 0; i < 8; i += 1) answers.push((await read('lst-mountain')).status);
    expect(answers).toEqual(Array(8).fill(200));
    expect(upstreamRequests(world)).toBe(before);
    // A read that may cost an upstream call is still counted.
    const unknown = [];
    for (let i = 0; i < 4; i += 1) unknown.push((await read(`lst-nowhere-${i}`)).status);
    expect(unknown).toEqual([404, 404, 404, 429]);
  });
});
