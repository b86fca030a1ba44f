import { tracingConfig } from './tracing-config';

describe('tracing from the standard OTEL_* variables', () => {
  it.each([
    ['nothing set', {}],
    ['the exporter set to none', { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }],
    ['the SDK disabled', { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }],
  ])('is off with %s: no SDK is loaded', (_name, env) => {
    expect(tracingConfig(env).enabled).toBe(false);
  });

  it.each([
    ['an OTLP endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, 'otlp'],
    ['a traces endpoint', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, 'otlp'],
    ['the console exporter', { OTEL_TRACES_EXPORTER: 'console' }, 'console'],
  ])('is on with %s', (_name, env, exporter) => {
    expect(tracingConfig(env)).toMatchObject({ enabled: true, exporter, serviceName: 'booking-checkout' });
  });

  it('takes the service name and the traces protocol before the general one', () => {
    expect(
      tracingConfig({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_SERVICE_NAME: 'checkout-eu',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      }),
    ).toEqual({
      enabled: true,
      serviceName: 'checkout-eu',
      exporter: 'otlp',
      otlpProtocol: 'http/json',
    });
  });
});
