import { onSurface } from '../utils/surface';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { startSandbox } from '../../sandbox/start-sandbox';
import { RunningSandbox, SANDBOX_CLIENT_SECRET } from '../../sandbox/types';
import { cardBody } from '../utils/checkout-client';
import { waitUntil } from '../utils/redis-server';
import { pointedAtSandbox } from '../utils/sandboxed-apps';
import { BUILT_MAIN, ServiceProcess, spawnService } from '../utils/service-process';
import { testRedisUrl } from '../utils/test-config';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

const SERVER = 2;
const CLIENT = 3;
const CVC = '918';
const CARD = '4000056655665556';

/** An OTLP/HTTP JSON receiver: what a collector would get, kept in memory for the test to search. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; bodies: string[]; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      bodies.push(body);
      const document = JSON.parse(body) as { resourceSpans?: { scopeSpans?: { spans?: ExportedSpan[] }[] }[] };
      for (const resource of document.resourceSpans ?? [])
        for (const scope of resource.scopeSpans ?? []) spans.push(...(scope.spans ?? []));
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function attribute(span: ExportedSpan, key: string): unknown {
  const value = span.attributes?.find((entry) => entry.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
}

async function startService(env: Record<string, string>): Promise<{ service: ServiceProcess; url: string }> {
  const service = spawnService(BUILT_MAIN, {
    ...env,
    PORT: '0',
    LOG_PRETTY: 'false',
    LOG_LEVEL: 'info',
    NODE_ENV: 'test',
    REDIS_URL: testRedisUrl(),
  });
  const listening = await service.waitForLog((entry) => entry.msg === 'booking checkout service listening', 30_000);
  return { service, url: `http://127.0.0.1:${listening.port as number}` };
}

function logLinesOf(service: ServiceProcess, requestId: string): Record<string, unknown>[] {
  return service.stdout.flatMap((line) => {
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      return entry.requestId === requestId ? [entry] : [];
    } catch {
      return [];
    }
  });
}

describe('OpenTelemetry traces (the built service, exporting OTLP to a collector)', () => {
  let sandbox: RunningSandbox;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let traced: { service: ServiceProcess; url: string };
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  const guestEmail = `trace-${randomUUID().slice(0, 8)}@example.com`;
  let sessionId: string;
  let idempotencyKey: string;

  beforeAll(async () => {
    sandbox = await startSandbox();
    collector = await startCollector();
    traced = await startService({
      ...pointedAtSandbox(sandbox.urls),
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    const reservation = sandbox.control.createReservation({ listingId: 'lst-seaside', guestEmail, balanceDue: 300, currency: 'USD' });
    const created = await fetch(`${traced.url}/checkout/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', traceparent: `00-${traceId}-${parentId}-01`, 'X-Request-Id': 'trace-session' },
      body: JSON.stringify({ reservationId: reservation.reservationId, email: guestEmail }),
    });
    expect(created.status).toBe(201);
    sessionId = ((await created.json()) as { id: string }).id;
    idempotencyKey = randomUUID();
    const paid = await fetch(`${traced.url}/checkout/sessions/${sessionId}/payment-method`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey, 'X-Request-Id': 'trace-card' },
      body: JSON.stringify(cardBody(CARD, { card: { cvc: CVC } })),
    });
    expect(paid.status).toBe(200);
    // The card request's server span ends last: once it is exported, so is everything it contains.
    await waitUntil(
      () => Promise.resolve(collector.spans.some((span) => span.name === 'POST /checkout/sessions/:id/payment-method')),
      20_000,
      'the card request exported',
    );
  });

  afterAll(async () => {
    traced?.service.child.kill('SIGTERM');
    await traced?.service.exited;
    await collector?.close();
    await sandbox?.stop();
  });

  it("continues the site's trace across the request, Redis and the upstream call", () => {
    const trace = collector.spans.filter((span) => span.traceId === traceId);
    const server = trace.find((span) => span.kind === SERVER && span.name === 'POST /checkout/sessions');
    expect(server?.parentSpanId).toBe(parentId);
    expect(attribute(server!, 'http.route')).toBe('/checkout/sessions');
    expect(trace.some((span) => (attribute(span, 'db.system.name') ?? attribute(span, 'db.system')) === 'redis')).toBe(true);
    const operation = onSurface({ legacy: 'getReservation', current: 'getReservationsV3' });
    const upstream = trace.find((span) => span.name === operation);
    expect(upstream && attribute(upstream, 'upstream.operation')).toBe(operation);
    // The HTTP client span beneath it is what carries traceparent on to the platform.
    expect(trace.some((span) => span.parentSpanId === upstream!.spanId && span.kind === CLIENT)).toBe(true);
  });

  it("shows the journal's steps of a card attach as spans", () => {
    const names = collector.spans.map((span) => span.name);
    // The fence is its own step only when write spacing is left to wait; otherwise recording the intent fenced it.
    const recorded = collector.spans.filter((span) => span.name === 'journal record intent');
    expect(recorded.length).toBeGreaterThan(0);
    for (const step of recorded) expect(attribute(step, 'journal.fenced') === true || names.includes('journal fence')).toBe(true);
    expect(names).toEqual(
      expect.arrayContaining([
        'journal record intent',
        'journal send',
        'journal settle',
        'upstream rate limit wait',
        'tokenizeCard',
        'attachPaymentMethod',
      ]),
    );
  });

  it('writes the trace id on every log line of the traced request', () => {
    const lines = logLinesOf(traced.service, 'trace-session');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.trace_id).toBe(traceId);
  });

  it('exports no secret, card data, guest data or capability in any span', () => {
    const exported = collector.bodies.join('\n');
    expect(exported.length).toBeGreaterThan(0);
    for (const forbidden of [
      CARD,
      guestEmail,
      'Olivia Guest',
      'Ocean Drive',
      sessionId,
      idempotencyKey,
      SANDBOX_CLIENT_SECRET,
      'Bearer',
      'authorization',
    ]) {
      expect(exported).not.toContain(forbidden);
    }
    expect(exported).not.toMatch(new RegExp(`\\b${CVC}\\b`));
  });

  it('starts nothing when no exporter is configured: no trace id in the logs', async () => {
    const plain = await startService(pointedAtSandbox(sandbox.urls));
    try {
      const answer = await fetch(`${plain.url}/checkout/listings/lst-seaside`, {
        headers: { traceparent: `00-${traceId}-${parentId}-01`, 'X-Request-Id': 'untraced' },
      });
      expect(answer.status).toBe(200);
      await plain.service.waitForLog((entry) => entry.requestId === 'untraced' && entry.msg === 'request');
      for (const line of logLinesOf(plain.service, 'untraced')) expect(line.trace_id).toBeUndefined();
    } finally {
      plain.service.child.kill('SIGTERM');
      await plain.service.exited;
    }
  });
});
