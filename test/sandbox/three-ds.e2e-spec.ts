import { startTestSandbox, tokenizeBody, type SandboxClient } from './sandbox-helpers';

const SUCCESS = 'https://shop.example.com/checkout/3ds/abc/success?state=x%2By&n=1';
const FAILURE = 'https://shop.example.com/checkout/3ds/abc/failure?state=x%2By';

describe('sandbox 3DS issuer page', () => {
  let client: SandboxClient;

  beforeAll(async () => {
    client = await startTestSandbox();
  });
  afterAll(() => client.sandbox.stop());

  async function threeDsToken(threeDS: Record<string, unknown>): Promise<{ id: string; authURL: string }> {
    const answer = await client.tokenize(tokenizeBody({ number: '4000000000003220', threeDS }));
    return { id: answer.body._id, authURL: answer.body.threeDS.authURL };
  }

  it('shows a plain HTML page with Authenticate and Fail buttons', async () => {
    const { id, authURL } = await threeDsToken({ amount: 594, currency: 'USD', successURL: SUCCESS, failureURL: FAILURE });
    const page = await fetch(authURL);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('Authenticate');
    expect(html).toContain('Fail');
    expect(html).toContain(`action="/3ds/${id}/authenticate"`);
    expect(html).toContain(`action="/3ds/${id}/fail"`);
    expect(html).toContain('594.00 USD');
    expect(html).toContain('3220');
  });

  it('redirects to successURL unchanged after Authenticate and records the outcome', async () => {
    const { id } = await threeDsToken({ amount: 594, currency: 'USD', successURL: SUCCESS, failureURL: FAILURE });
    const answer = await client.issuerAction(id, 'authenticate');
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe(SUCCESS);
    expect(client.control.getToken(id)?.threeDS.outcome).toBe('authenticated');
  });

  it('redirects to failureURL unchanged after Fail, and the first decision stays final', async () => {
    const { id } = await threeDsToken({ amount: 594, currency: 'USD', successURL: SUCCESS, failureURL: FAILURE });
    const failed = await client.issuerAction(id, 'fail');
    expect(failed.status).toBe(303);
    expect(failed.headers.get('location')).toBe(FAILURE);
    const retried = await client.issuerAction(id, 'authenticate');
    expect(retried.headers.get('location')).toBe(FAILURE);
    expect(client.control.getToken(id)?.threeDS.outcome).toBe('failed');
  });

  it('lands on a blank page when the request gave neither URL', async () => {
    const { id } = await threeDsToken({ amount: 594, currency: 'USD' });
    const answer = await client.issuerAction(id, 'authenticate');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.text).toBe('');
    expect(answer.headers.get('location')).toBeNull();
    expect(client.control.getToken(id)?.threeDS.outcome).toBe('authenticated');
  });

  it('answers 404 pages for an unknown token or one that needs no 3DS', async () => {
    expect((await fetch(`${client.urls.payUrl}/3ds/tok_unknown`)).status).toBe(404);
    expect((await client.issuerAction('tok_unknown', 'authenticate')).status).toBe(404);
    const plain = await client.tokenize(tokenizeBody({}));
    expect((await fetch(`${client.urls.payUrl}/3ds/${plain.body._id}`)).status).toBe(404);
  });
});
