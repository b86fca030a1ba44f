import { createHash } from 'node:crypto';
import { FastifyReply, FastifyRequest } from 'fastify';

/** How long a browser, proxy or CDN may keep a public answer, and serve it stale while it asks again. */
export interface PublicCaching {
  maxAgeSeconds: number;
  staleWhileRevalidateSeconds: number;
}

/** A public read's JSON text and its strong ETag, made together once per cached copy and kept beside it. */
export interface PublicText {
  text: string;
  etag: string;
}

/** A strong validator: the same bytes give the same tag on every replica. */
export function strongEtag(text: string): string {
  return `"${createHash('sha1').update(text).digest('base64url')}"`;
}

/** RFC 9110 §13.1.2: If-None-Match compares weakly; `*` matches any current answer. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

export function publicCacheControl(caching: PublicCaching): string {
  return `public, max-age=${caching.maxAgeSeconds}, stale-while-revalidate=${caching.staleWhileRevalidateSeconds}`;
}

/**
 * Sends a public read's JSON text with a strong ETag and `Cache-Control: public`: a browser or CDN
 * in front may keep it, and a request whose If-None-Match names it gets 304 with no body.
 */
export function sendPublicJson(
  request: FastifyRequest,
  reply: FastifyReply,
  text: string,
  caching: PublicCaching,
  etag: string = strongEtag(text),
): void {
  sendPublic(request, reply, { text, type: 'application/json; charset=utf-8' }, caching, etag);
}

/**
 * sendPublicJson of a text and ETag made once per cached copy, in hand or on its way: a promise
 * only for the latter, so a route answering a held copy leaves Nest nothing to await.
 */
export function sendPublicText(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: PublicText | Promise<PublicText>,
  caching: PublicCaching,
): Promise<void> | undefined {
  const send = ({ text, etag }: PublicText) => sendPublicJson(request, reply, text, caching, etag);
  if (answer instanceof Promise) return answer.then(send);
  send(answer);
  return undefined;
}

/** sendPublicJson for a text of any type (a script, a style sheet). */
export function sendPublic(
  request: FastifyRequest,
  reply: FastifyReply,
  body: { text: string; type: string },
  caching: PublicCaching,
  etag: string = strongEtag(body.text),
): void {
  void reply.header('ETag', etag).header('Cache-Control', publicCacheControl(caching));
  if (etagMatches(request.headers['if-none-match'], etag)) {
    void reply.status(304).send();
    return;
  }
  void reply.type(body.type).send(body.text);
}
