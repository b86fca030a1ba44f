import { SpanStatusCode } from '@opentelemetry/api';
import { TracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { ScrubbingSpanExporter } from './span-scrubbing';

const SESSION_PATH = '/checkout/sessions/cs_Clx_FlS-5xM3jTjFyax246otL2MulRna/payment-method';

describe('spans leave the service scrubbed', () => {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: new ScrubbingSpanExporter(memory) })] });
  const tracer = provider.getTracer('test');

  afterAll(() => provider.shutdown());

  it('keeps the product words and drops paths, queries, addresses, headers, statements and messages', async () => {
    const span = tracer.startSpan('POST /checkout/sessions/:id/payment-method', {
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/checkout/sessions/:id/payment-method',
        'http.response.status_code': 200,
        'url.full': `https://checkout.example.com${SESSION_PATH}?state=3ds-secret`,
        'url.path': SESSION_PATH,
        'http.target': SESSION_PATH,
        'client.address': '203.0.113.9',
        'http.client_ip': '203.0.113.9',
        'http.request.header.authorization': 'Bearer token-value',
        'db.query.text': 'SET checkout:session {"email":"olivia@example.com"}',
        'upstream.operation': 'attachPaymentMethod',
      },
    });
    span.recordException(new Error('card 4242424242424242 refused for olivia@example.com'));
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'cvc 123 refused' });
    span.end();
    await provider.forceFlush();

    const [exported] = memory.getFinishedSpans();
    expect(exported.attributes).toEqual({
      'http.request.method': 'POST',
      'http.route': '/checkout/sessions/:id/payment-method',
      'http.response.status_code': 200,
      'upstream.operation': 'attachPaymentMethod',
    });
    expect(exported.events.map((event) => event.attributes)).toEqual([{ 'exception.type': 'Error' }]);
    expect(exported.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(exported.spanContext().traceId).toBe(span.spanContext().traceId);
    expect(JSON.stringify({ attributes: exported.attributes, events: exported.events, status: exported.status })).not.toMatch(
      /cs_Clx|3ds-secret|203\.0\.113|Bearer|olivia|4242|cvc/,
    );
  });
});
