import { SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET } from '../../sandbox/start-sandbox';
import { startTestSandbox, type SandboxClient } from './sandbox-helpers';

const NO_PERMISSION = "You don't have permission to access, please contact Guesty support";
const grant = { grant_type: 'client_credentials', scope: 'open-api' };
const bodyCredentials = { ...grant, client_id: SANDBOX_CLIENT_ID, client_secret: SANDBOX_CLIENT_SECRET };
const basic = (id: string, secret: string) => ({
  Authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
});

describe('sandbox token issuer (POST /oauth2/token)', () => {
  let client: SandboxClient;

  beforeAll(async () => {
    client = await startTestSandbox();
  });
  afterAll(() => client.sandbox.stop());
  beforeEach(() => client.control.reset());

  it('issues a bearer token for credentials in the body', async () => {
    const answer = await client.requestToken(bodyCredentials);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      token_type: 'Bearer',
      expires_in: 86400,
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      scope: 'open-api',
    });
    expect(answer.headers.get('x-request-id')).toBeTruthy();
    expect(client.control.counters.tokensMinted).toBe(1);
  });

  it('issues a token for HTTP Basic credentials', async () => {
    const answer = await client.requestToken(grant, basic(SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET));
    expect(answer.status).toBe(200);
    const listings = await client.api('/v1/listings', { token: answer.body.access_token });
    expect(listings.status).toBe(200);
  });

  it('refuses wrong or missing credentials with 401, as RFC 6749 §5.2 says (invalid_client)', async () => {
    expect((await client.requestToken({ ...bodyCredentials, client_secret: 'nope' })).status).toBe(401);
    const wrongBasic = await client.requestToken(grant, basic(SANDBOX_CLIENT_ID, 'nope'));
    expect(wrongBasic.status).toBe(401);
    expect(wrongBasic.headers.get('www-authenticate')).toMatch(/^Basic /);
    const missing = await client.requestToken(grant);
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    expect(client.control.counters.tokensMinted).toBe(0);
  });

  it('refuses a wrong grant type, scope or content type with 400', async () => {
    const grantType = await client.requestToken({ ...bodyCredentials, grant_type: 'password' });
    expect([grantType.status, grantType.body.error]).toEqual([400, 'unsupported_grant_type']);
    const scope = await client.requestToken({ ...bodyCredentials, scope: 'everything' });
    expect([scope.status, scope.body.error]).toEqual([400, 'invalid_scope']);
    const asJson = await fetch(`${client.urls.authUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(bodyCredentials),
    });
    expect(asJson.status).toBe(400);
    expect(await asJson.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses the 6th token in 24 h with 429, and allows one again when the oldest leaves the window', async () => {
    for (let i = 0; i < 5; i += 1) expect((await client.requestToken(bodyCredentials)).status).toBe(200);
    const sixth = await client.requestToken(bodyCredentials);
    expect(sixth.status).toBe(429);
    expect(sixth.body.message).toMatch(/5 tokens/);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(client.control.counters.tokensMinted).toBe(5);
    client.control.advanceClock(24 * 3600 * 1000);
    expect((await client.requestToken(bodyCredentials)).status).toBe(200);
  });

  it('answers 403 with the no-permission message for a missing, unknown, expired or revoked token', async () => {
    const expectNoPermission = async (token: string | null) => {
      const answer = await client.api('/v1/listings', { token });
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ message: NO_PERMISSION });
    };
    await expectNoPermission(null);
    await expectNoPermission('not.a.token');

    const token = await client.mintToken();
    client.control.advanceClock(86_400_000 - 10_000);
    expect((await client.api('/v1/listings', { token })).status).toBe(200);
    client.control.advanceClock(10_000);
    await expectNoPermission(token);

    const fresh = await client.mintToken();
    client.control.revokeAllTokens();
    await expectNoPermission(fresh);
  });

  it('honours a custom lifetime and daily budget', async () => {
    const custom = await startTestSandbox({ tokenTtlSeconds: 60, tokensPerDay: 1, clientId: 'me', clientSecret: 's3cret' });
    try {
      const first = await custom.requestToken({ ...grant, client_id: 'me', client_secret: 's3cret' });
      expect(first.body.expires_in).toBe(60);
      expect((await custom.requestToken({ ...grant, client_id: 'me', client_secret: 's3cret' })).status).toBe(429);
      custom.control.advanceClock(60_000);
      expect((await custom.api('/v1/listings', { token: first.body.access_token })).status).toBe(403);
    } finally {
      await custom.sandbox.stop();
    }
  });
});
