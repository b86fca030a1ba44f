import fastifyCors from '@fastify/cors';
import { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DestinationStream, Logger } from 'pino';
import { AppModule } from './app.module';
import { Clock } from './primitives/clock';
import { AppConfig } from './config/app-config';
import { installHttpHooks } from './http-hooks';
import { wrongMethodAnswers } from './common/http/method-not-allowed';
import { installSecurityHeaders } from './common/http/security-headers';
import { requestIdFor } from './common/http/request-id';
import { createLogger } from './common/logging/create-logger';
import { PinoLoggerService } from './common/logging/pino-logger.service';
import { WriteKinds } from './journal/write-kinds';
import { ProductEventBus } from './common/events/product-event-bus';
import { setUpOpenApi } from './docs/openapi';
import { ShutdownState } from './health/shutdown-state';
import { MetricsService } from './metrics/metrics.service';

export interface CreateAppOptions {
  /** Where log lines go (tests capture them); stdout by default. */
  logDestination?: DestinationStream;
  /** Modules added beside the product's own: the demo page in sandbox mode, probe routes in tests. */
  extraModules?: (Type | DynamicModule)[];
  /** The wall clock (tests move it to reach token refresh and expiry). */
  clock?: Clock;
}

export interface CreatedApp {
  app: NestFastifyApplication;
  logger: Logger;
}

/** Builds the service for a configuration, initialised but not listening: main.ts and tests share it. */
export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<CreatedApp> {
  const logger = createLogger(config.logging, options.logDestination);
  const adapter = new FastifyAdapter({
    bodyLimit: config.http.bodyLimitBytes,
    trustProxy: config.http.trustProxy > 0 ? config.http.trustProxy : false,
    genReqId: requestIdFor,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // No Nest middleware: without @fastify/middie every request skips its hook.
    skipMiddie: true,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(config, options.extraModules, options.clock), adapter, {
    logger: new PinoLoggerService(logger),
    abortOnError: false,
    // The webhook signature is over the body exactly as received (docs/product-spec.md §4).
    rawBody: true,
  });

  const fastify = app.getHttpAdapter().getInstance();
  const allowed = new Set(config.http.corsOrigins);
  const exposedHeaders = ['X-Request-Id', 'Retry-After'];
  const metrics = app.get(MetricsService);
  const shutdown = app.get(ShutdownState);
  installHttpHooks(fastify, logger, metrics, shutdown);
  const wrongMethods = wrongMethodAnswers(fastify);
  // JSON is the only body the API reads; anything else is a clear 415.
  fastify.removeContentTypeParser('text/plain');

  installSecurityHeaders(fastify);
  // @fastify/cors itself, not Nest's enableCors: that wrapper copies the CORS headers onto the raw
  // response for answers a Nest middleware ends (there are none), at about 8 µs of a cached read’s 48.
  await app.register(fastifyCors, {
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'POST'],
    // traceparent and tracestate: a page that traces its own calls continues its trace here (W3C Trace Context).
    allowedHeaders: ['Content-Type', 'Idempotency-Key', 'X-Request-Id', 'traceparent', 'tracestate'],
    exposedHeaders,
    credentials: false,
    maxAge: 600,
  });
  if (config.http.docsEnabled) setUpOpenApi(app);

  await app.init();
  // A product event without its consumer is a wiring mistake: refuse to start rather than drop it.
  app.get(ProductEventBus).assertConsumed();
  // An intent kind without its handler could never be settled by the sweep: refuse to start, naming it.
  app.get(WriteKinds).assertHandled();
  wrongMethods.answer();
  await fastify.ready();
  return { app, logger };
}
