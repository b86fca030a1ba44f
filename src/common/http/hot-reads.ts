import { IncomingMessage, Server, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { Injectable, Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { nameServerSpan } from '../telemetry/current-trace';
import { etagMatches, PublicCaching, publicCacheControl } from './public-answer';
import { requestIdFor } from './request-id';
import { SECURITY_HEADERS } from './security-headers';

/** A public read's answer from the replica's own copy: its JSON text and its strong ETag. */
export interface HotAnswer {
  text: string;
  etag: string;
}

/** What a reader gets of the request: the route's path parameters and the query. */
export interface HotRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
}

/**
 * Answers from what the replica holds, at once; undefined sends the request down its route as usual.
 * The same answer object for as long as the copy it was made from is unchanged: its headers are made once per object.
 */
export type HotReader = (request: HotRequest) => HotAnswer | undefined;

/** One route's answers of one status: their access-log line and HTTP metrics, resolved once. */
export type AnswerRecorder = (requestId: string, ms: number) => void;

interface HotRoute {
  template: string;
  pattern: RegExp;
  names: string[];
  cacheControl: string;
  reader: HotReader;
  recorders?: { ok: AnswerRecorder; notModified: AnswerRecorder };
}

/** An answer's headers but the request id's value (and CORS, which depends on the request), in the order a route's answer has them. */
interface AnswerHead {
  ok: string[];
  notModified: string[];
}

/** What every answer carries besides its body, as the service's hooks add it (http-hooks.ts, app.factory.ts). */
export interface HotReadDuties {
  corsOrigins: ReadonlySet<string>;
  exposedHeaders: string;
  /** False while draining: the framework's own answer then closes the connection. */
  serving(): boolean;
  /** The access-log line and the HTTP metrics of a route's answers with this status. */
  recorder(method: string, route: string, status: number): AnswerRecorder;
}

const SECURITY_HEAD = Object.entries(SECURITY_HEADERS).flat();
/** Where the request id's value goes in an answer's head, and where CORS headers go when the request's origin is allowed. */
const REQUEST_ID_AT = SECURITY_HEAD.length + 1;
const CORS_AT = REQUEST_ID_AT + 3;

/**
 * Public reads a replica can answer from its own copy (a listing summary, calendar months), taken
 * before the framework: such an answer needs no Redis, no upstream call, no guards or pipes. A
 * reader with nothing passes the request to its route. The answer keeps the route's headers, logs
 * and metrics; what never changes per request is built once.
 */
@Injectable()
export class HotReads {
  private readonly routes: HotRoute[] = [];
  private readonly heads = new WeakMap<HotAnswer, AnswerHead>();

  /** Serves `controller.method`'s GET route from `reader` whenever it has an answer, cacheable as `caching` says. */
  serve(controller: Type, method: string, caching: PublicCaching, reader: HotReader): void {
    const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
    const handler = (controller.prototype as Record<string, unknown>)[method] as object;
    const path = Reflect.getMetadata(PATH_METADATA, handler) as string;
    const template = `/${base}/${path}`.replace(/\/+/g, '/').replace(/\/$/, '');
    const names: string[] = [];
    const pattern = template.replace(/:([A-Za-z_]\w*)/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    this.routes.push({ template, pattern: new RegExp(`^${pattern}$`), names, cacheControl: publicCacheControl(caching), reader });
  }

  /**
   * Put in front of the server's own request handler: a GET of a hot read that the replica holds is
   * answered here, anything else goes on to the framework untouched.
   */
  install(server: Server, duties: HotReadDuties): void {
    for (const route of this.routes) {
      route.recorders = { ok: duties.recorder('GET', route.template, 200), notModified: duties.recorder('GET', route.template, 304) };
    }
    const handlers = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
    server.removeAllListeners('request');
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      if (this.routes.length > 0 && request.method === 'GET' && duties.serving() && this.answer(request, response, duties)) return;
      for (const handler of handlers) handler.call(server, request, response);
    });
  }

  private answer(request: IncomingMessage, response: ServerResponse, duties: HotReadDuties): boolean {
    const started = performance.now();
    const url = request.url ?? '/';
    const mark = url.indexOf('?');
    const path = mark < 0 ? url : url.slice(0, mark);
    for (const route of this.routes) {
      const match = route.pattern.exec(path);
      if (!match || !route.recorders) continue;
      const params: Record<string, string> = {};
      for (let index = 0; index < route.names.length; index += 1) params[route.names[index]] = match[index + 1];
      const found = route.reader({ params, query: mark < 0 ? {} : parseQuery(url.slice(mark + 1)) });
      if (!found) return false;
      const requestId = requestIdFor(request);
      nameServerSpan('GET', route.template);
      const head = this.headOf(route, found);
      const notModified = etagMatches(request.headers['if-none-match'], found.etag);
      const headers = (notModified ? head.notModified : head.ok).slice();
      headers[REQUEST_ID_AT] = requestId;
      const origin = request.headers.origin;
      if (origin !== undefined && duties.corsOrigins.has(origin)) {
        headers.splice(CORS_AT, 0, 'Access-Control-Allow-Origin', origin, 'Access-Control-Expose-Headers', duties.exposedHeaders);
      }
      if (notModified) response.writeHead(304, headers).end();
      else response.writeHead(200, headers).end(found.text);
      (notModified ? route.recorders.notModified : route.recorders.ok)(requestId, performance.now() - started);
      return true;
    }
    return false;
  }

  private headOf(route: HotRoute, found: HotAnswer): AnswerHead {
    let head = this.heads.get(found);
    if (head === undefined) {
      // The order of a route's answer: security headers, request id, Vary, CORS, ETag, Cache-Control, then the body's.
      const notModified = [...SECURITY_HEAD, 'X-Request-Id', '', 'Vary', 'Origin', 'ETag', found.etag, 'Cache-Control', route.cacheControl];
      const body = ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(found.text))];
      this.heads.set(found, (head = { ok: [...notModified, ...body], notModified }));
    }
    return head;
  }
}
