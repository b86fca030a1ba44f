import { FastifyInstance } from 'fastify';
import { PROBLEM_CONTENT_TYPE, problemDetails } from '../errors/problem-details';

/** The methods a wrong call may use; OPTIONS stays with CORS preflight. */
const ANSWERED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

/**
 * A known path called with a method it does not take answers 405 `method_not_allowed` with an
 * `Allow` header (RFC 9110 §15.5.6), not 404: the site learns its call is wrong, not its path.
 * Call before the routes are registered; `answer` after, before the server is ready.
 */
export function wrongMethodAnswers(fastify: FastifyInstance): { answer(): void } {
  const methodsByPath = new Map<string, Set<string>>();
  let answering = false;
  fastify.addHook('onRoute', (route) => {
    if (answering || route.url.includes('*')) return;
    const methods = methodsByPath.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    // Fastify answers HEAD wherever GET is taken.
    if (methods.has('GET')) methods.add('HEAD');
    methodsByPath.set(route.url, methods);
  });
  return {
    answer() {
      answering = true;
      for (const [url, methods] of methodsByPath) {
        const others = ANSWERED_METHODS.filter((method) => !methods.has(method));
        if (others.length === 0) continue;
        const allow = ANSWERED_METHODS.filter((method) => methods.has(method)).join(', ');
        fastify.route({
          method: others,
          url,
          exposeHeadRoute: false,
          handler: (request, reply) =>
            reply
              .status(405)
              .header('Allow', allow)
              .header('Content-Type', PROBLEM_CONTENT_TYPE)
              .send(problemDetails('method_not_allowed', `${url} takes ${allow}, not ${request.method}.`, String(request.id))),
        });
      }
    },
  };
}
