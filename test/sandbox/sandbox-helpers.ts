/** Shared plumbing for the sandbox's own e2e specs: real HTTP against startSandbox() on free ports. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  SANDBOX_CLIENT_ID,
  SANDBOX_CLIENT_SECRET,
  startSandbox,
  type RunningSandbox,
  type SandboxOptions,
} from '../../sandbox/start-sandbox';

/** Upstream JSON as the specs read it: shapes are checked with expect(), not with types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonBody = any;

export interface Reply {
  status: number;
  headers: Headers;
  body: JsonBody;
  text: string;
}

async function reply(response: Response): Promise<Reply> {
  const text = await response.text();
  let body: JsonBody;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

export class SandboxClient {
  private accessToken?: string;

  constructor(readonly sandbox: RunningSandbox) {}

  get urls() {
    return this.sandbox.urls;
  }

  get control() {
    return this.sandbox.control;
  }

  async requestToken(form: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> {
    const response = await fetch(`${this.urls.authUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json', ...headers },
      body: new URLSearchParams(form).toString(),
    });
    return reply(response);
  }

  async mintToken(): Promise<string> {
    const answer = await this.requestToken({
      grant_type: 'client_credentials',
      scope: 'open-api',
      client_id: SANDBOX_CLIENT_ID,
      client_secret: SANDBOX_CLIENT_SECRET,
    });
    if (answer.status !== 200) throw new Error(`token request answered ${answer.status}: ${answer.text}`);
    return answer.body.access_token as string;
  }

  /** Forgets the cached token (after control.reset() the old one is unknown). */
  forgetToken(): void {
    this.accessToken = undefined;
  }

  async api(path: string, init: { method?: string; body?: unknown; token?: string | null } = {}): Promise<Reply> {
    if (init.token === undefined && this.accessToken === undefined) this.accessToken = await this.mintToken();
    const token = init.token === undefined ? this.accessToken : init.token;
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(`${this.urls.apiUrl}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return reply(response);
  }

  async tokenize(body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const response = await fetch(`${this.urls.payUrl}/api/tokenize/v2`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return reply(response);
  }

  /** Presses a button on the issuer page; redirects are not followed so Location can be checked. */
  async issuerAction(tokenId: string, action: 'authenticate' | 'fail'): Promise<Reply> {
    const response = await fetch(`${this.urls.payUrl}/3ds/${tokenId}/${action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    return reply(response);
  }

  /**
   * Tokenizes a card for a listing's current provider and attaches it to the reservation. Another channel pays at the platform: through the legacy routes while they are served, else
   * through the current surface (Reservations V3, and the payment-method create by confirmation code).
   */
  async payWithCard(reservationId: string, number: string): Promise<{ tokenId: string; attach: Reply }> {
    const legacy = await this.api(`/v1/reservations/${reservationId}`);
    // Either list wrapper the platform may use: a bare array or `{results}`.
    const listed = legacy.status === 200 ? undefined : (await this.api(`/v1/reservations-v3?reservationIds[]=${reservationId}`)).body;
    const current = listed && (Array.isArray(listed) ? listed : (listed.results as JsonBody[]))[0];
    const listingId = (current ? current.stay[0].unitTypeId : legacy.body.listingId) as string;
    const provider = await this.api(`/v1/payment-providers/provider-by-listing?listingId=${listingId}`);
    const paymentProviderId = provider.body.paymentProviderId as string;
    const token = await this.tokenize(tokenizeBody({ paymentProviderId, listingId, number }));
    const tokenId = token.body._id as string;
    const attach = current
      ? await this.api('/v1/payment-methods', {
          body: { guestId: current.bookerId, _id: tokenId, paymentProviderId, confirmationCode: current.confirmationCode, reuse: false },
        })
      : await this.api(`/v1/guests/${legacy.body.guestId}/payment-methods`, { body: { _id: tokenId, paymentProviderId, reservationId } });
    return { tokenId, attach };
  }
}

export function tokenizeBody(options: {
  paymentProviderId?: string;
  listingId?: string;
  number?: string;
  cvc?: string;
  threeDS?: Record<string, unknown>;
}): Record<string, JsonBody> {
  return {
    paymentProviderId: options.paymentProviderId ?? 'pp-seaside',
    listingId: options.listingId ?? 'lst-seaside',
    card: { number: options.number ?? '4242424242424242', exp_month: '12', exp_year: '2099', cvc: options.cvc ?? '123' },
    billing_details: {
      name: 'Una Wells',
      address: { line1: '1 Main Street', city: 'Springfield', postal_code: '12345', country: 'US' },
    },
    threeDS: options.threeDS ?? { amount: 594, currency: 'USD' },
  };
}

/** The sandbox's own specs probe its legacy routes too: served unless a spec asks otherwise. */
export async function startTestSandbox(options: SandboxOptions = {}): Promise<SandboxClient> {
  return new SandboxClient(await startSandbox({ legacyRoutes: 'served', ...options }));
}

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A stand-in for the service: records each webhook as it arrives. */
export async function webhookReceiver(): Promise<{
  url: string;
  received: Received[];
  next: () => Promise<Received>;
  close: () => Promise<void>;
}> {
  const received: Received[] = [];
  const waiting: ((entry: Received) => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      waiting.shift()?.(entry);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/guesty`,
    received,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
