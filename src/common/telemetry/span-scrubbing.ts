import type { Attributes } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace';

/**
 * The span attributes that may leave the service: methods, statuses, route templates, hosts and the
 * product's own words. Everything else is dropped, so that no path with a session id or 3-D Secure
 * state, no query, no client address, no header, no Redis argument and no body ever reaches a
 * collector, whatever an instrumentation adds in a later version.
 */
const SAFE_ATTRIBUTES = new Set([
  'http.method',
  'http.request.method',
  'http.status_code',
  'http.response.status_code',
  'http.route',
  'http.scheme',
  'http.flavor',
  'network.protocol.version',
  'net.peer.name',
  'net.peer.port',
  'server.address',
  'server.port',
  'error.type',
  'db.system',
  'db.system.name',
  'db.statement',
  'db.operation.name',
  'upstream.operation',
  'upstream.host',
  'upstream.priority',
  'journal.kind',
  'journal.state',
  'journal.fenced',
]);

function safeAttributes(attributes: Attributes): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([key]) => SAFE_ATTRIBUTES.has(key)));
}

// An exception event keeps its type; its message and stack may quote a request.
function safeEvent(event: TimedEvent): TimedEvent {
  const type = event.attributes?.['exception.type'];
  return { name: event.name, time: event.time, ...(type !== undefined ? { attributes: { 'exception.type': type } } : {}) };
}

/** The span as it may be exported: safe attributes only, events without messages, a status without its message. */
export function scrubbedSpan(span: ReadableSpan): ReadableSpan {
  const scrubbed = Object.create(span) as ReadableSpan & Record<string, unknown>;
  Object.defineProperties(scrubbed, {
    attributes: { value: safeAttributes(span.attributes) },
    events: { value: span.events.map(safeEvent) },
    status: { value: { code: span.status.code } },
    links: { value: span.links.map((link) => ({ context: link.context })) },
  });
  return scrubbed;
}

/** Wraps the exporter the standard variables chose: every span is scrubbed before it leaves. */
export class ScrubbingSpanExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], resultCallback: Parameters<SpanExporter['export']>[1]): void {
    this.inner.export(spans.map(scrubbedSpan), resultCallback);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
