import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';

const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is a sane token, else a fresh one. */
export function requestIdFor(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  const value = Array.isArray(given) ? given[0] : given;
  return value && ACCEPTABLE_REQUEST_ID.test(value) ? value : randomUUID();
}
