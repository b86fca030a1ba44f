import { IncomingMessage, Server, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { Injectable, Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { nameServerSpan } from '../telemetry/current-trace';
import { etagMatches, PublicCaching, publicCacheControl, strongEtag } from './public-answer';
import { requestIdFor } from './request-id';
import { SECURITY_HEADERS } from './security-headers';

/** A public read's answer from the replica's own copy: its JSON text, and how long others may keep it. */
export interface HotAnswer {
  text: string;
  caching: PublicCaching;
  /** The text's strong ETag, when the reader keeps it with the text. */
  etag?: string;
}

/** What a reader gets of the request: the route's path parameters and the query. */
export interface HotRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
}

/** Answers from what the replica holds, at once; undefined sends the request down its route as usual. */
export type HotReader = (request: HotRequest) => HotAnswer | undefined;

interface HotRoute {
  template: string;
  pattern: RegExp;
  names: string[];
  reader: HotReader;
}

/** What every answer carries besides its body, as the service's hooks add it (http-hooks.ts, app.factory.ts). */
export interface HotReadDuties {
  corsOrigins: ReadonlySet<string>;
  exposedHeaders: string;
  /** False while draining: the framework's own answer then closes the connection. */
  serving(): boolean;
  /** The access-log line and the HTTP metrics of one answer. */
  answered(request: { path: string; requestId: string; method: string; route: string; status: number; ms: number }): void;
}

/**
 * The public reads a replica can answer from its own copy (a listing summary, calendar months), taken
 * before the framework sees the request: such an answer costs no Redis round trip and no upstream
 * call, so it needs none of the routing, guards, pipes and hooks around the route. Each reader is
 * attached to a route its controller declares (the path comes from the controller's own decorators);
 * whenever the reader has nothing, the request goes to that route as usual. The answer carries every
 * header the route's would: the request id, the security headers, CORS, ETag and Cache-Control, and it
 * is logged and counted in the HTTP metrics like any other.
 */
@Injectable()
export class HotReads {
  private readonly routes: HotRoute[] = [];

  /** Serves `controller.method`'s GET route from `reader` whenever it has an answer. */
  serve(controller: Type, method: string, reader: HotReader): void {
    const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
    const handler = (controller.prototype as Record<string, unknown>)[method] as object;
    const path = Reflect.getMetadata(PATH_METADATA, handler) as string;
    const template = `/${base}/${path}`.replace(/\/+/g, '/').replace(/\/$/, '');
    const names: string[] = [];
    const pattern = template.replace(/:([A-Za-z_]\w*)/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    this.routes.push({ template, pattern: new RegExp(`^${pattern}$`), names, reader });
  }

  /**
   * Put in front of the server's own request handler: a GET of a hot read that the replica holds is
   * answered here, anything else goes on to the framework untouched.
   */
  install(server: Server, duties: HotReadDuties): void {
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
      if (!match) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, index) => (params[name] = match[index + 1]));
      const found = route.reader({ params, query: mark < 0 ? {} : parseQuery(url.slice(mark + 1)) });
      if (!found) return false;
      const requestId = requestIdFor(request);
      nameServerSpan('GET', route.template);
      const etag = found.etag ?? strongEtag(found.text);
      for (const name in SECURITY_HEADERS) response.setHeader(name, SECURITY_HEADERS[name]);
      response.setHeader('X-Request-Id', requestId);
      response.setHeader('Vary', 'Origin');
      const origin = request.headers.origin;
      if (origin !== undefined && duties.corsOrigins.has(origin)) {
        response.setHeader('Access-Control-Allow-Origin', origin);
        response.setHeader('Access-Control-Expose-Headers', duties.exposedHeaders);
      }
      response.setHeader('ETag', etag);
      response.setHeader('Cache-Control', publicCacheControl(found.caching));
      let status = 200;
      if (etagMatches(request.headers['if-none-match'], etag)) {
        status = 304;
        response.writeHead(status).end();
      } else {
        response.setHeader('Content-Type', 'application/json; charset=utf-8');
        response.setHeader('Content-Length', Buffer.byteLength(found.text));
        response.writeHead(status).end(found.text);
      }
      duties.answered({ path, requestId, method: 'GET', route: route.template, status, ms: performance.now() - started });
      return true;
    }
    return false;
  }
}
