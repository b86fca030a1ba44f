/** What the service reads of OpenTelemetry's standard variables; the SDK reads the rest (endpoint, protocol, headers, sampler). */
export interface TracingConfig {
  /** False unless an exporter is configured: then no SDK is loaded or started. */
  enabled: boolean;
  serviceName: string;
  /** `otlp` (the standard default) or `console`. */
  exporter: 'otlp' | 'console';
  /** OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL: `grpc`, `http/protobuf` (default) or `http/json`. */
  otlpProtocol?: string;
}

type Environment = Record<string, string | undefined>;

/**
 * Tracing is on when the standard variables name somewhere to send spans (OTEL_TRACES_EXPORTER
 * other than `none`, or an OTLP endpoint) and OTEL_SDK_DISABLED is not `true`.
 */
export function tracingConfig(env: Environment = process.env): TracingConfig {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const named =
    exporters.length > 0
      ? !exporters.every((name) => name === 'none')
      : set('OTEL_EXPORTER_OTLP_ENDPOINT') || set('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim();
  return {
    enabled: named && (env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() !== 'true',
    serviceName: set('OTEL_SERVICE_NAME') ? env.OTEL_SERVICE_NAME!.trim() : 'booking-checkout',
    exporter: exporters.includes('console') && !exporters.includes('otlp') ? 'console' : 'otlp',
    ...(protocol ? { otlpProtocol: protocol } : {}),
  };
}
