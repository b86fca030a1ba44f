/** POST /oauth2/token and the bearer check every /v1 request goes through (docs/upstream-seed.md §4.1, §5). */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { jsonAnswer, type SandboxAnswer } from '../http/answer';
import { parseForm } from '../http/body';
import { UpstreamRefusal } from '../http/errors';
import type { RequestContext } from '../http/host-server';
import type { SandboxRuntime } from '../runtime/runtime';

export const NO_PERMISSION_MESSAGE = "You don't have permission to access, please contact Guesty support";

const DAY_MS = 24 * 60 * 60 * 1000;

interface Credentials {
  clientId: string;
  clientSecret: string;
}

function base64url(data: Buffer | object): string {
  return (Buffer.isBuffer(data) ? data : Buffer.from(JSON.stringify(data))).toString('base64url');
}

function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

/** RFC 6749 §2.3.1: id and secret are form-encoded before they go into the Basic header. */
function basicCredentials(headers: IncomingHttpHeaders): Credentials | undefined {
  const found = /^Basic\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  if (!found) return undefined;
  const decoded = Buffer.from(found[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
}

/**
 * A refusal as RFC 6749 §5.2 publishes it: `{error, error_description}`, 400, or 401 for a client
 * that failed to authenticate, with the challenge of the scheme it tried (docs/upstream-reference/examples/oauth2-token-error.json).
 */
function oauthError(
  error: 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope',
  description: string,
  headers: Record<string, string> = {},
): UpstreamRefusal {
  return new UpstreamRefusal(
    error === 'invalid_client' ? 401 : 400,
    { error, error_description: description },
    {
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
      ...headers,
    },
  );
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function authenticateClient(runtime: SandboxRuntime, ctx: RequestContext, form: URLSearchParams): string {
  const fromBody =
    form.has('client_id') || form.has('client_secret')
      ? { clientId: form.get('client_id') ?? '', clientSecret: form.get('client_secret') ?? '' }
      : undefined;
  const given = [basicCredentials(ctx.headers), fromBody].filter((c): c is Credentials => c !== undefined);
  const valid = (c: Credentials) => c.clientId === runtime.options.clientId && sameSecret(c.clientSecret, runtime.options.clientSecret);
  if (given.length === 0 || !given.every(valid)) {
    const basic = ctx.headers.authorization !== undefined ? { 'WWW-Authenticate': 'Basic realm="oauth2"' } : undefined;
    throw oauthError('invalid_client', 'Client authentication failed', basic);
  }
  return given[0].clientId;
}

function mintToken(runtime: SandboxRuntime, clientId: string, now: number): string {
  const ttlSeconds = runtime.options.tokenTtlSeconds;
  const header = { alg: 'RS256', typ: 'JWT', kid: 'sandbox' };
  const claims = {
    iss: 'https://sandbox.invalid/oauth2',
    cid: clientId,
    scp: ['open-api'],
    iat: Math.floor(now / 1000),
    exp: Math.floor(now / 1000) + ttlSeconds,
    jti: randomUUID(),
  };
  const token = `${base64url(header)}.${base64url(claims)}.${base64url(randomBytes(32))}`;
  runtime.store.accessTokens.set(token, { clientId, issuedAt: now, expiresAt: now + ttlSeconds * 1000, revoked: false });
  return token;
}

export function handleTokenRequest(ctx: RequestContext): SandboxAnswer {
  const { runtime, now } = ctx;
  let form: URLSearchParams;
  try {
    form = parseForm(ctx.headers['content-type'], ctx.rawBody);
  } catch {
    throw oauthError('invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
  }
  const clientId = authenticateClient(runtime, ctx, form);
  if (form.get('grant_type') !== 'client_credentials') {
    throw oauthError('unsupported_grant_type', 'grant_type must be client_credentials');
  }
  if (form.get('scope') !== 'open-api') {
    throw oauthError('invalid_scope', 'scope must be open-api');
  }
  const recent = (runtime.store.mintLog.get(clientId) ?? []).filter((time) => time > now - DAY_MS);
  runtime.store.mintLog.set(clientId, recent);
  if (recent.length >= runtime.options.tokensPerDay) {
    const retryAfter = Math.max(1, Math.ceil((recent[0] + DAY_MS - now) / 1000));
    throw new UpstreamRefusal(
      429,
      {
        message: `Too many access token requests: at most ${runtime.options.tokensPerDay} tokens per client id in 24 hours`,
        code: 'TOO_MANY_TOKEN_REQUESTS',
      },
      { 'Retry-After': String(retryAfter) },
    );
  }
  recent.push(now);
  runtime.counters.tokensMinted += 1;
  const accessToken = mintToken(runtime, clientId, now);
  return jsonAnswer(
    200,
    { token_type: 'Bearer', expires_in: runtime.options.tokenTtlSeconds, access_token: accessToken, scope: 'open-api' },
    { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
  );
}

/** The account (client id) behind a valid bearer token, or undefined for a missing, unknown, expired or revoked one. */
export function bearerAccount(runtime: SandboxRuntime, headers: IncomingHttpHeaders, now: number): string | undefined {
  const found = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  if (!found) return undefined;
  const record = runtime.store.accessTokens.get(found[1]);
  if (!record || record.revoked || now >= record.expiresAt) return undefined;
  return record.clientId;
}

export function revokeAllTokens(runtime: SandboxRuntime): void {
  for (const record of runtime.store.accessTokens.values()) record.revoked = true;
}
