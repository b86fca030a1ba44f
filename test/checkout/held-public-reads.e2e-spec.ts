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

/** A counter's value for one label set in the Prometheus text of /metrics (0 while it has none). */
function counted(metrics: string, name: string, labels: string): number {
  const line = metrics.split('\n').find((text) => text.startsWith(`${name}{${labels}} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * A public read this replica holds (a summary, calendar months) is answered by its route like any
 * other (docs/product-spec.md §3): from the replica's copy, behind the per-address read guard, logged
 * and counted by the service's hooks. A 304 is decided from the copy: no upstream call.
 */
describe('public reads a replica holds, answered by their routes', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, {
      env: { CORS_ORIGINS: SITE, CALENDAR_CACHE_SECONDS: '120', CHECKOUT_IP_READ_LIMIT: '4/m', TRUST_PROXY: '1' },
    });
  });
  afterAll(() => world.close());

  const { checkIn: from, checkOut: to } = stay(90, 20);
  const routes = [
    { name: 'a listing summary', path: '/checkout/listings/lst-seaside', route: '/checkout/listings/:id', address: '203.0.113.9' },
    {
      name: 'the calendar',
      path: `/checkout/listings/lst-city/calendar?from=${from}&to=${to}`,
      route: '/checkout/listings/:id/calendar',
      address: '203.0.113.10',
    },
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

  it.each(routes)(
    '$name held by the replica still counts against the client’s read allowance, logged and measured like any answer',
    async ({ path, route, address }) => {
      const url = `${world.apps[0].url}${path}`;
      const read = (requestId: string, headers: Record<string, string> = {}) =>
        fetch(url, { headers: { ...headers, 'X-Forwarded-For': address, 'X-Request-Id': requestId } });
      const metricsBefore = await (await fetch(`${world.apps[0].url}/metrics`)).text();
      // The first read fills the replica's copy (or finds it held); the allowance is 4 a minute.
      const first = await read(`${address}-1`);
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag') as string;
      await first.arrayBuffer();
      const before = upstreamRequests(world);
      const statuses = [];
      const conditions: Record<string, string>[] = [{}, { 'If-None-Match': etag }, {}, {}, { 'If-None-Match': etag }];
      for (const [index, headers] of conditions.entries()) {
        const answer = await read(`${address}-${index + 2}`, headers);
        statuses.push(answer.status);
        if (answer.status === 429) {
          expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          expect(((await answer.json()) as { code: string }).code).toBe('rate_limited');
          expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
        } else await answer.arrayBuffer();
      }
      // Held or not, every read is counted: the fifth of the minute is refused, the 304 included.
      expect(statuses).toEqual([200, 304, 200, 429, 429]);
      expect(upstreamRequests(world)).toBe(before);
      // Another client is counted on its own, and gets the held copy.
      expect((await fetch(url, { headers: anyClient() })).status).toBe(200);

      const metrics = await (await fetch(`${world.apps[0].url}/metrics`)).text();
      const grew = (name: string, labels: string) => counted(metrics, name, labels) - counted(metricsBefore, name, labels);
      const answers = (status: number) => grew('http_requests_total', `method="GET",route="${route}",status="${status}"`);
      expect([answers(200), answers(304), answers(429)]).toEqual([4, 1, 2]);
      expect(grew('request_limit_refusals_total', 'limit="client_ip_read"')).toBe(2);
      const logged = world.apps[0].logs
        .entries()
        .filter((entry) => entry.msg === 'request' && String(entry.requestId).startsWith(`${address}-`))
        .map((entry) => [entry.route, entry.status]);
      expect(logged).toEqual([200, 200, 304, 200, 429, 429].map((status) => [route, status]));
    },
  );
});
