/** What every /v1 request passes before its handler: the bearer token, then the account's rate limits. */
import { jsonAnswer, withHeaders, type SandboxAnswer } from '../http/answer';
import { answerForRefusal, type RequestContext, type RouteDefinition, type RouteHandler } from '../http/host-server';
import type { SandboxRoute } from '../types';
import { bearerAccount, NO_PERMISSION_MESSAGE } from './token-issuer';

export function passGate(ctx: RequestContext, handler: RouteHandler): SandboxAnswer {
  const { runtime, now } = ctx;
  const account = bearerAccount(runtime, ctx.headers, now);
  if (account === undefined) {
    return jsonAnswer(403, { message: NO_PERMISSION_MESSAGE }, runtime.limiter.peek(runtime.options.clientId, now));
  }
  const decision = runtime.limiter.check(account, now);
  if (!decision.allowed) {
    runtime.counters.rateLimited += 1;
    const retryAfter = String(decision.retryAfterSeconds ?? 1);
    return jsonAnswer(
      429,
      { message: `Too many requests, retry after ${retryAfter} s`, code: 'TOO_MANY_REQUESTS' },
      { ...decision.headers, 'Retry-After': retryAfter },
    );
  }
  let answer: SandboxAnswer;
  try {
    answer = handler(ctx);
  } catch (error) {
    answer = answerForRefusal(error);
  }
  return withHeaders(answer, decision.headers);
}

export function openApiRoute(name: SandboxRoute, method: 'GET' | 'POST' | 'PUT', path: RegExp, handler: RouteHandler): RouteDefinition {
  return { name, method, path, handle: (ctx) => passGate(ctx, handler) };
}
