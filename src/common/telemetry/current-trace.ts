import { trace } from '@opentelemetry/api';

/** The ids of the span being served, for log lines; nothing when tracing is off (no span is active then). */
export function currentTrace(): { trace_id?: string; span_id?: string } {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !trace.isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}

/**
 * The server span takes the route's template (never the path: ids in a checkout path are
 * capabilities). `route` is asked only when a span is active: Fastify builds it on every ask.
 */
export function nameServerSpan(method: string, route: () => string | undefined): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  const template = route();
  if (!template) return;
  span.updateName(`${method} ${template}`);
  span.setAttribute('http.route', template);
}
