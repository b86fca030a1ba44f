import { Attributes, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = trace.getTracer('booking-checkout');

/**
 * Runs a step of the product as a span of the current trace (a no-op span when tracing is off).
 * Attributes are the product's words only (an operation, a kind, a state), never ids or values; the
 * step may add what it learnt while it ran to its span.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  step: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await step(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', error instanceof Error ? error.name : 'error');
      throw error;
    } finally {
      span.end();
    }
  });
}
