import { FastifyInstance } from 'fastify';
import { Logger } from 'pino';
import { ShutdownState } from './health/shutdown-state';
import { MetricsService } from './metrics/metrics.service';
import { PROBLEM_CONTENT_TYPE, problemDetails } from './common/errors/problem-details';
import { requestContext } from './common/logging/request-context';
import { nameServerSpan } from './common/telemetry/current-trace';

const QUIET_PATHS = /^\/(health(\/|$)|metrics$)/;
const NO_STORE_PATHS = /^\/(checkout|admin)(\/|$)/;
const FORM_PATHS = /^\/checkout\/3ds\//;

/**
 * Per-request plumbing at the Fastify level, where it sees every request (unknown routes and
 * body-parser errors included): the request id in the response header and the log context,
 * no-store on checkout answers (but the public reads, which set their own), connection close while draining, one access-log line and the HTTP
 * metrics.
 */
export function installHttpHooks(fastify: FastifyInstance, logger: Logger, metrics: MetricsService, shutdown: ShutdownState): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('X-Request-Id', request.id);
    nameServerSpan(request.method, () => request.routeOptions.url);
    requestContext.run({ requestId: request.id }, done);
  });

  // Nest parses forms too; they are accepted only where an issuer's 3-D Secure page may post back.
  fastify.addHook('preValidation', (request, reply, done) => {
    const form = String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    if (form && !FORM_PATHS.test(request.url)) {
      void reply
        .status(415)
        .header('Content-Type', PROBLEM_CONTENT_TYPE)
        .send(problemDetails('unsupported_media_type', 'Send the body as application/json.', String(request.id)));
      return;
    }
    done();
  });

  fastify.addHook('onSend', (request, reply, payload, done) => {
    // Public reads (calendar, listing summary, extras catalogue) set their own Cache-Control; every other answer, errors included, is no-store.
    if (!reply.hasHeader('Cache-Control') && NO_STORE_PATHS.test(request.url)) void reply.header('Cache-Control', 'no-store');
    // While draining, a finished request must not leave a keep-alive connection holding the exit.
    if (shutdown.isShuttingDown) void reply.header('Connection', 'close');
    done(null, payload);
  });

  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const ms = reply.elapsedTime;
    metrics.recordHttp(request.method, route, reply.statusCode, ms / 1000);
    if (logger.isLevelEnabled('info') && !QUIET_PATHS.test(request.url.split('?')[0])) {
      // The route template only (/checkout/sessions/:id/...), never the path: session ids are
      // capabilities and 3-D Secure states one-time secrets, and an unmatched path may hold either.
      logger.info(
        { requestId: request.id, method: request.method, route, status: reply.statusCode, ms: Math.round(ms * 10) / 10 },
        'request',
      );
    }
    done();
  });
}
