/** What every /v1 request passes before its handler: the bearer token, then the account's rate limits. */
import { jsonAnswer, withHeaders, type SandboxAnswer } from '../http/answer';
import { answerForRefusal, type RequestContext, type RouteDefinition, type RouteHandler } from '../http/host-server';
import type { SandboxRoute } from '../types';
import { invalidParameters, UpstreamRefusal } from '../http/errors';
import { recordViolation } from './contract-violations';
import { compileRequestValidators, PRODUCT_USER_AGENT_PREFIX, refusalStatusOf, requestProblems } from './reference-gate';
import { newRequestId } from '../state/store';
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

/** The reference's request schema before the route's own rules: what it would refuse is refused, and recorded. */
function checkedAgainstReference(reference: string, handler: RouteHandler): RouteHandler {
  return (ctx) => {
    const problems = requestProblems(ctx.method, reference, ctx.url.searchParams, {
      contentType: ctx.headers['content-type'],
      raw: ctx.rawBody,
    });
    if (problems.length === 0) return handler(ctx);
    recordViolation({
      operation: `${ctx.method} ${reference}`,
      path: ctx.url.pathname,
      problems,
      byProduct: (ctx.headers['user-agent'] ?? '').startsWith(PRODUCT_USER_AGENT_PREFIX),
    });
    if (refusalStatusOf(ctx.method, reference) === 400) throw invalidParameters(problems);
    throw new UpstreamRefusal(422, {
      message: 'Some of the request parameters are invalid',
      code: 'ValidationError',
      details: problems,
      requestId: newRequestId(),
    });
  };
}

const GATED: { method: string; reference: string }[] = [];

/** Every /v1 operation the sandbox serves, as the reference names it: what the contract test reports on. */
export function gatedOperations(): readonly { method: string; reference: string }[] {
  return GATED;
}

/**
 * Compiles every /v1 route's validators before the sandbox listens: compiling on a first request
 * would stall the loop mid-burst and bunch the requests queued behind it into one rate-limit window.
 */
export function prepareReferenceGate(): void {
  for (const { method, reference } of GATED) compileRequestValidators(method, reference);
}

/** A /v1 route: `reference` is its path as the platform's reference names it (/listings/{id}). */
export function openApiRoute(
  name: SandboxRoute,
  method: 'GET' | 'POST' | 'PUT',
  path: RegExp,
  reference: string,
  handler: RouteHandler,
): RouteDefinition {
  GATED.push({ method, reference });
  const checked = checkedAgainstReference(reference, handler);
  return { name, method, path, reference, handle: (ctx) => passGate(ctx, checked) };
}
