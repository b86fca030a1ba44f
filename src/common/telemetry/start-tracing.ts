/* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on, and synchronously: the
   instrumentations must patch http and ioredis before the service requires them. */
import type { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { TracingConfig } from '../../config/tracing-config';
import { ScrubbingSpanExporter } from './span-scrubbing';

/** The OTLP exporter for the protocol the standard variables name; each reads its own endpoint, headers and timeout. */
function otlpExporter(protocol: string | undefined): SpanExporter {
  switch (protocol) {
    case 'grpc':
      return new (
        require('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc')
      ).OTLPTraceExporter();
    case 'http/json':
      return new (
        require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')
      ).OTLPTraceExporter();
    default:
      return new (
        require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')
      ).OTLPTraceExporter();
  }
}

function chosenExporter(config: TracingConfig): SpanExporter {
  if (config.exporter === 'console')
    return new (require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace')).ConsoleSpanExporter();
  return otlpExporter(config.otlpProtocol);
}

/**
 * Starts OpenTelemetry's Node SDK when the standard variables configure an exporter; otherwise
 * nothing is loaded and the API's calls in the product stay no-ops. W3C trace context is the
 * SDK's default propagator: a site's `traceparent` continues its trace here and on to the platform.
 */
export function startTracing(config: TracingConfig): NodeSDK | undefined {
  if (!config.enabled) return undefined;
  const { NodeSDK: Sdk } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const sdk = new Sdk({
    serviceName: config.serviceName,
    traceExporter: new ScrubbingSpanExporter(chosenExporter(config)),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes are not stories worth a trace.
        ignoreIncomingRequestHook: (request) => /^\/(health\/|metrics$)/.test(request.url ?? ''),
      }),
      // The command alone: arguments hold key names and stored records.
      new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
    ],
  });
  sdk.start();
  return sdk;
}
