import type { IncomingMessage } from 'node:http';
import { badRequest, UpstreamRefusal } from './errors';

const MAX_BODY_BYTES = 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new UpstreamRefusal(413, { message: 'Request body too large' });
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** A JSON object body; anything else (wrong content type, malformed, an array) is a 400. */
export function parseJsonObject(contentType: string | undefined, raw: Buffer): Record<string, unknown> {
  if (mediaType(contentType) !== 'application/json') {
    throw badRequest('Content-Type must be application/json', 'INVALID_CONTENT_TYPE');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('Malformed JSON body', 'INVALID_JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badRequest('The body must be a JSON object', 'INVALID_JSON');
  }
  return parsed as Record<string, unknown>;
}

export function parseForm(contentType: string | undefined, raw: Buffer): URLSearchParams {
  if (mediaType(contentType) !== 'application/x-www-form-urlencoded') {
    throw badRequest('Content-Type must be application/x-www-form-urlencoded', 'INVALID_CONTENT_TYPE');
  }
  return new URLSearchParams(raw.toString('utf8'));
}
