import request from 'supertest';
import { EchoModule } from '../utils/echo.module';
import { startTestApp, TestApp } from '../utils/test-app';

describe('HTTP basics: health, problem details, request ids, CORS, headers', () => {
  let service: TestApp;

  beforeAll(async () => {
    service = await startTestApp({ CORS_ORIGINS: 'https://booking.example.com,http://localhost:8080' }, { extraModules: [EchoModule] });
  });

  afterAll(async () => {
    await service.close();
  });

  it('answers liveness and readiness while Redis is up', async () => {
    const live = await request(service.url).get('/health/live').expect(200);
    expect(live.body.status).toBe('ok');
    const ready = await request(service.url).get('/health/ready').expect(200);
    expect(ready.body.details.redis).toMatchObject({ status: 'up', store: 'redis' });
  });

  it('echoes the caller X-Request-Id, makes one when absent, and replaces an unsafe one', async () => {
    const given = await request(service.url).get('/health/live').set('X-Request-Id', 'site-req-42').expect(200);
    expect(given.headers['x-request-id']).toBe('site-req-42');
    const made = await request(service.url).get('/health/live').expect(200);
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await request(service.url).get('/health/live').set('X-Request-Id', 'bad id with spaces').expect(200);
    expect(unsafe.headers['x-request-id']).not.toBe('bad id with spaces');
  });

  it('answers unknown routes with a problem-details 404 carrying the request id', async () => {
    const res = await request(service.url).get('/nothing/here').set('X-Request-Id', 'rid-404').expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toEqual({
      type: 'urn:problem:checkout:not_found',
      title: 'Not found',
      status: 404,
      detail: expect.any(String),
      code: 'not_found',
      requestId: 'rid-404',
    });
  });

  it('refuses malformed JSON with a clear 400 that does not quote the body', async () => {
    const res = await request(service.url)
      .post('/test/echo')
      .set('Content-Type', 'application/json')
      .send('{"name": "4111111111111111",')
      .expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('malformed_json');
    expect(JSON.stringify(res.body)).not.toContain('4111');
  });

  it('refuses a body over 32 KB with 413', async () => {
    const res = await request(service.url)
      .post('/test/echo')
      .send({ name: 'x'.repeat(40 * 1024) })
      .expect(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('refuses a body that is not JSON with 415', async () => {
    const res = await request(service.url).post('/test/echo').set('Content-Type', 'text/plain').send('name=x').expect(415);
    expect(res.body.code).toBe('unsupported_media_type');
  });

  it('lists every failing field of a body, unknown fields included, without echoing values', async () => {
    const res = await request(service.url)
      .post('/test/echo')
      .send({ name: 'n'.repeat(21), item: { code: 'x', quantity: 0 }, cardNumber: '4242424242424242' })
      .expect(400);
    expect(res.body.code).toBe('validation_failed');
    const fields = (res.body.errors as { field: string }[]).map((e) => e.field).sort();
    expect(fields).toEqual(['cardNumber', 'item.quantity', 'name']);
    expect(JSON.stringify(res.body)).not.toContain('4242424242424242');
  });

  it('answers an unexpected error with a generic 500 whose log line holds the scrubbed cause', async () => {
    const res = await request(service.url).get('/test/crash').set('X-Request-Id', 'rid-crash').expect(500);
    expect(res.body).toMatchObject({ code: 'internal_error', requestId: 'rid-crash' });
    expect(JSON.stringify(res.body)).not.toMatch(/hunter2|db:|4242/);
    const line = service.logs.entries().find((entry) => entry.requestId === 'rid-crash' && entry.level === 'error');
    expect(line).toBeDefined();
    expect(JSON.stringify(line)).toContain('lost connection');
    expect(JSON.stringify(line)).not.toMatch(/4242 4242 4242 4242/);
  });

  it('allows exactly the configured origins, with Vary: Origin and the documented headers', async () => {
    const preflight = await request(service.url)
      .options('/checkout/sessions')
      .set('Origin', 'https://booking.example.com')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type,idempotency-key');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://booking.example.com');
    expect(preflight.headers['access-control-allow-headers']).toMatch(/Idempotency-Key/);
    expect(preflight.headers.vary).toMatch(/Origin/);
    // A page that traces its own calls sends W3C trace context: the trace continues here.
    const traced = await request(service.url)
      .options('/checkout/quotes')
      .set('Origin', 'https://booking.example.com')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type,traceparent,tracestate');
    expect(traced.headers['access-control-allow-headers']).toMatch(/traceparent/);
    expect(traced.headers['access-control-allow-headers']).toMatch(/tracestate/);

    const simple = await request(service.url).get('/health/live').set('Origin', 'http://localhost:8080').expect(200);
    expect(simple.headers['access-control-allow-origin']).toBe('http://localhost:8080');
    expect(simple.headers['access-control-expose-headers']).toMatch(/X-Request-Id/);
    expect(simple.headers['access-control-expose-headers']).toMatch(/Retry-After/);
  });

  it('gives a refused origin no CORS permission at all', async () => {
    const preflight = await request(service.url)
      .options('/checkout/sessions')
      .set('Origin', 'https://evil.example.net')
      .set('Access-Control-Request-Method', 'POST');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const simple = await request(service.url).get('/health/live').set('Origin', 'https://evil.example.net').expect(200);
    expect(simple.headers['access-control-allow-origin']).toBeUndefined();
    expect(simple.headers.vary).toMatch(/Origin/);
  });

  it('sends security headers everywhere and no-store on checkout answers', async () => {
    const res = await request(service.url).get('/checkout/unknown').expect(404);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
  });

  it('counts requests by route and status in /metrics, and describes routes in /docs-json', async () => {
    await request(service.url).get('/health/live').expect(200);
    const metrics = await request(service.url).get('/metrics').expect(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect(metrics.text).toMatch(/http_requests_total\{method="GET",route="\/health\/live",status="200"\} \d+/);
    expect(metrics.text).toContain('http_request_duration_seconds_bucket');
    expect(metrics.text).toContain('process_cpu_seconds_total');
    const docs = await request(service.url).get('/docs-json').expect(200);
    expect(Object.keys(docs.body.paths)).toEqual(expect.arrayContaining(['/health/live', '/health/ready', '/metrics']));
  });

  it('does not access-log health checks but logs other requests with their request id', async () => {
    await request(service.url).get('/health/ready').set('X-Request-Id', 'rid-quiet').expect(200);
    await request(service.url).get('/docs-json').set('X-Request-Id', 'rid-loud').expect(200);
    const requestIds = service.logs
      .entries()
      .filter((entry) => entry.msg === 'request')
      .map((entry) => entry.requestId);
    expect(requestIds).toContain('rid-loud');
    expect(requestIds).not.toContain('rid-quiet');
  });
});
