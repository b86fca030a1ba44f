import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { startTestApp, TestApp } from '../utils/test-app';

const METHODS = ['get', 'head', 'post', 'put', 'delete', 'patch'] as const;

interface Walk {
  path: string;
  url: string;
  method: (typeof METHODS)[number];
  allow: string[];
}

/** Every documented path, with each method it does not take and the methods it does (HEAD wherever GET is). */
function wrongCalls(): Walk[] {
  const document = JSON.parse(readFileSync(join(__dirname, '../../docs/openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, unknown>>;
  };
  return Object.entries(document.paths).flatMap(([path, operations]) => {
    const taken = new Set(Object.keys(operations));
    if (taken.has('get')) taken.add('head');
    const allow = METHODS.filter((method) => taken.has(method)).map((method) => method.toUpperCase());
    const url = path.replace(/\{[^}]+\}/g, 'any-id-1');
    return METHODS.filter((method) => !taken.has(method)).map((method) => ({ path, url, method, allow }));
  });
}

describe('a documented path called with a method it does not take', () => {
  let service: TestApp;

  beforeAll(async () => {
    service = await startTestApp({ ADMIN_API_KEY: 'admin-key-for-the-method-walk-0123456789' });
  });

  afterAll(() => service.close());

  it.each(wrongCalls().map((walk) => [`${walk.method.toUpperCase()} ${walk.path}`, walk] as const))(
    '%s answers 405 method_not_allowed with Allow listing the methods it takes',
    async (_name, { url, method, allow }) => {
      const keysBefore = await service.redisKeys();
      const agent = request(service.url);
      const answer = await agent[method](url)
        .set('Content-Type', 'application/json')
        .send(method === 'get' || method === 'head' ? undefined : '{}');
      expect(answer.status).toBe(405);
      expect(answer.headers.allow?.split(', ').sort()).toEqual([...allow].sort());
      if (method !== 'head') {
        expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(answer.body).toMatchObject({ status: 405, code: 'method_not_allowed' });
        // The route's template, never the path: ids in a checkout path are capabilities.
        expect(answer.body.detail).not.toContain('any-id-1');
      }
      expect((await service.redisKeys()).filter((key) => !keysBefore.includes(key))).toEqual([]);
    },
  );

  it('still answers 404 not_found for a path no route takes', async () => {
    const answer = await request(service.url).get('/checkout/nowhere').expect(404);
    expect(answer.body.code).toBe('not_found');
    expect(answer.headers.allow).toBeUndefined();
  });

  it('names the four calls site developers met: GET and DELETE quotes, PUT sessions, GET a payment method', () => {
    const calls = wrongCalls().map((walk) => `${walk.method.toUpperCase()} ${walk.path}`);
    expect(calls).toEqual(
      expect.arrayContaining([
        'GET /checkout/quotes',
        'DELETE /checkout/quotes',
        'PUT /checkout/sessions',
        'GET /checkout/sessions/{id}/payment-method',
      ]),
    );
  });
});
