import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { SandboxRuntime } from '../runtime/runtime';
import type { ForcedAnswer } from '../runtime/faults';
import { newRequestId } from '../state/store';
import type { SandboxRoute } from '../types';
import { jsonAnswer, type SandboxAnswer } from './answer';
import { readBody } from './body';
import { UpstreamRefusal } from './errors';

export interface RequestContext {
  runtime: SandboxRuntime;
  method: string;
  url: URL;
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Sandbox clock when handling starts (after any delay). */
  now: number;
}

export type RouteHandler = (ctx: RequestContext) => SandboxAnswer;

export interface RouteDefinition {
  name: SandboxRoute;
  method: 'GET' | 'POST' | 'PUT';
  path: RegExp;
  /** The reference's path template, where the route has one (the same operation may have two: current and legacy). */
  reference?: string;
  handle: RouteHandler;
}

export interface HostDefinition {
  routes: RouteDefinition[];
  /** The answer for a path no route serves (404) or a method the path does not take (405). */
  unmatched(ctx: RequestContext, status: 404 | 405): SandboxAnswer;
}

interface Match {
  route?: RouteDefinition;
  status?: 404 | 405;
  params: Record<string, string>;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function match(routes: RouteDefinition[], method: string, pathname: string): Match {
  let pathKnown = false;
  for (const route of routes) {
    const found = route.path.exec(pathname);
    if (!found) continue;
    pathKnown = true;
    if (route.method !== method) continue;
    const params: Record<string, string> = {};
    for (const [key, value] of Object.entries(found.groups ?? {})) params[key] = decode(value);
    return { route, params };
  }
  return { status: pathKnown ? 405 : 404, params: {} };
}

export function answerForRefusal(error: unknown): SandboxAnswer {
  if (error instanceof UpstreamRefusal) return jsonAnswer(error.status, error.body, error.headers);
  const detail = error instanceof Error ? error.message : String(error);
  return jsonAnswer(500, { message: 'Internal sandbox error', detail });
}

function forcedAnswer(forced: ForcedAnswer): SandboxAnswer {
  const body = forced.body ?? { message: `Sandbox forced status ${forced.status}` };
  const defaults: Record<string, string> = forced.status === 429 ? { 'Retry-After': '1' } : {};
  const answer =
    typeof body === 'string'
      ? { status: forced.status, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body }
      : jsonAnswer(forced.status, body);
  return { ...answer, headers: { ...answer.headers, ...defaults, ...forced.headers } };
}

function write(res: ServerResponse, answer: SandboxAnswer, requestId: string): number {
  try {
    res.writeHead(answer.status, {
      ...answer.headers,
      'X-Request-Id': requestId,
      'Content-Length': Buffer.byteLength(answer.body),
    });
    res.end(answer.body);
    return answer.status;
  } catch (error) {
    const fallback = answerForRefusal(error);
    if (!res.headersSent) res.writeHead(fallback.status, { ...fallback.headers, 'X-Request-Id': requestId });
    res.end(fallback.body);
    return fallback.status;
  }
}

/** Timers of delayed answers, cleared on stop so that nothing outlives the sandbox. */
export type TimerSet = Set<NodeJS.Timeout>;

function sleep(ms: number, timers: TimerSet): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      resolve();
    }, ms);
    timers.add(timer);
  });
}

async function serve(
  runtime: SandboxRuntime,
  host: HostDefinition,
  timers: TimerSet,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const requestId = newRequestId();
  const now = runtime.now();
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
  const found = match(host.routes, method, url.pathname);
  const routeName = found.route?.name ?? 'unknown';
  const requests = runtime.counters.requests;
  requests[routeName] = (requests[routeName] ?? 0) + 1;
  const reference = found.route?.reference;
  const finish = (status: number) => runtime.log({ route: routeName, method, status, time: now, ...(reference ? { reference } : {}) });

  let rawBody: Buffer;
  try {
    rawBody = await readBody(req);
  } catch (error) {
    finish(write(res, answerForRefusal(error), requestId));
    return;
  }
  await sleep(runtime.options.latencyMs + runtime.faults.delayOf(routeName), timers);

  const slow = runtime.faults.takeSlowWrite(routeName);
  if (slow) {
    const actedAt = Date.now() + slow.actAfterMs;
    await new Promise<void>((resolve) => {
      const forget = runtime.faults.waitToAct(routeName, resolve);
      void sleep(slow.actAfterMs, timers).then(() => {
        forget();
        resolve();
      });
    });
    const early = Math.max(0, actedAt - Date.now());
    const answer = handle(runtime, host, found, { method, url, headers: req.headers, rawBody });
    if (slow.dropAnswer) {
      req.socket.destroy();
      finish(0);
      return;
    }
    await sleep(slow.answerAfterMs - slow.actAfterMs - early, timers);
    finish(write(res, answer, requestId));
    return;
  }

  const fault = runtime.faults.take(routeName);
  if (fault.drop && !fault.drop.afterHandling) {
    req.socket.destroy();
    finish(0);
    return;
  }
  const answer = fault.forced ? forcedAnswer(fault.forced) : handle(runtime, host, found, { method, url, headers: req.headers, rawBody });
  if (fault.drop) {
    req.socket.destroy();
    finish(0);
    return;
  }
  finish(write(res, answer, requestId));
}

/** Carries the request out now (whether or not its caller still listens) and tells the waiters it did. */
function handle(
  runtime: SandboxRuntime,
  host: HostDefinition,
  found: Match,
  request: Pick<RequestContext, 'method' | 'url' | 'headers' | 'rawBody'>,
): SandboxAnswer {
  runtime.settle();
  const ctx: RequestContext = { runtime, ...request, params: found.params, now: runtime.now() };
  let answer: SandboxAnswer;
  try {
    answer = found.route ? found.route.handle(ctx) : host.unmatched(ctx, found.status ?? 404);
  } catch (error) {
    answer = answerForRefusal(error);
  }
  runtime.acted({ route: found.route?.name ?? 'unknown', method: request.method, status: answer.status, time: ctx.now });
  return answer;
}

/** Idle connections stay open as long as a cloud load balancer keeps them (Node's 5 s closes them under a slow client). */
const KEEP_ALIVE_MS = 60_000;

export function createHostServer(runtime: SandboxRuntime, host: HostDefinition, timers: TimerSet): Server {
  const server = createServer((req, res) => {
    serve(runtime, host, timers, req, res).catch((error: unknown) => {
      if (!res.headersSent) write(res, answerForRefusal(error), newRequestId());
      else res.destroy();
    });
  });
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  return server;
}
