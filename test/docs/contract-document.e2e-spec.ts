import request from 'supertest';
import { ERROR_CODES, ErrorCode } from '../../src/common/errors/error-code';
import { startTestApp, TestApp } from '../utils/test-app';

interface Example {
  value: Record<string, unknown>;
}
interface Response {
  headers?: Record<string, unknown>;
  content?: Record<string, { examples?: Record<string, Example> }>;
}
interface Operation {
  parameters?: { name: string; in: string }[];
  responses: Record<string, Response>;
  requestBody?: { content: Record<string, { examples?: Record<string, Example> }> };
}

/** What a website developer reads in /docs-json: the contract built from ERROR_CODES, with its headers and real examples. */
describe('the OpenAPI contract (/docs-json)', () => {
  let service: TestApp;
  let docs: {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }>; securitySchemes: Record<string, object> };
  };

  const problemExamples = (path: string, method: string, status: string): Example[] =>
    Object.values(docs.paths[path][method].responses[status]?.content?.['application/problem+json']?.examples ?? {});
  const codesAt = (path: string, method: string, status: string): string[] =>
    problemExamples(path, method, status).map((example) => String(example.value.code));

  beforeAll(async () => {
    service = await startTestApp();
    docs = (await request(service.url).get('/docs-json').expect(200)).body;
  });

  afterAll(async () => {
    await service.close();
  });

  it('lists every error code as the enum of `code`', () => {
    expect(docs.components.schemas.ProblemDetailsDto.properties.code.enum).toEqual(Object.keys(ERROR_CODES));
  });

  it('gives each problem status of each route examples of codes that status really carries, with their ERROR_CODES title', () => {
    let checked = 0;
    for (const [path, methods] of Object.entries(docs.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (!response.content?.['application/problem+json']) continue;
          const examples = problemExamples(path, method, status);
          expect(examples.length).toBeGreaterThan(0);
          for (const { value } of examples) {
            expect({ path, status, code: value.code, title: value.title }).toEqual({
              path,
              status,
              code: value.code,
              title: ERROR_CODES[value.code as ErrorCode].title,
            });
            expect(value.status).toBe(Number(status));
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('documents the codes each booking route answers, not one validation example everywhere', () => {
    expect(codesAt('/checkout/sessions', 'post', '404')).toEqual(expect.arrayContaining(['reservation_not_found', 'quote_not_found']));
    expect(codesAt('/checkout/sessions', 'post', '409')).toEqual(expect.arrayContaining(['quote_used', 'dates_unavailable']));
    expect(codesAt('/checkout/sessions/{id}/payment-method', 'post', '402')).toEqual(['card_declined']);
    expect(codesAt('/checkout/sessions/{id}/payment-method', 'post', '409')).toEqual(
      expect.arrayContaining(['already_paid', 'hold_expired']),
    );
    expect(codesAt('/checkout/sessions/{id}/payment-method', 'post', '502')).toContain('payment_account_unavailable');
    expect(codesAt('/checkout/quotes', 'post', '422')).toEqual(['stay_not_allowed']);
    expect(codesAt('/checkout/quotes', 'post', '400')).toEqual(expect.arrayContaining(['validation_failed', 'malformed_json']));
    expect(codesAt('/checkout/quotes', 'post', '415')).toEqual(['unsupported_media_type']);
    expect(codesAt('/checkout/listings/{id}/calendar', 'get', '404')).toEqual(['listing_not_found']);
    expect(codesAt('/checkout/sessions/{id}', 'get', '404')).toEqual(['session_not_found']);
  });

  it('documents Retry-After where the service sends it, and X-Request-Id on problem answers and as a request header', () => {
    const payment = docs.paths['/checkout/sessions/{id}/payment-method'].post;
    for (const status of ['429', '502', '503'])
      expect(Object.keys(payment.responses[status].headers ?? {})).toEqual(expect.arrayContaining(['X-Request-Id', 'Retry-After']));
    expect(Object.keys(payment.responses['402'].headers ?? {})).toEqual(['X-Request-Id']);
    expect(payment.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }),
        expect.objectContaining({ name: 'X-Request-Id', in: 'header' }),
      ]),
    );
  });

  it('documents the 3-D Secure returns: the state query and the 303 Location', () => {
    for (const method of ['get', 'post']) {
      const operation = docs.paths['/checkout/3ds/{id}/success'][method];
      expect(operation.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'state', in: 'query' })]));
      expect(Object.keys(operation.responses['303'].headers ?? {})).toContain('Location');
    }
  });

  it('shows each session status with only the fields it carries, and the two payment-method bodies apart', () => {
    const examples = docs.paths['/checkout/sessions/{id}'].get.responses['200'].content!['application/json'].examples!;
    expect(Object.keys(examples)).toEqual(['requires_payment_method', 'requires_action', 'succeeded', 'failed']);
    const fresh = examples.requires_payment_method.value;
    expect(fresh).not.toHaveProperty('nextAction');
    expect(fresh).not.toHaveProperty('paymentMethod');
    expect(fresh).not.toHaveProperty('lastError');
    expect(examples.requires_action.value).toHaveProperty('nextAction.redirectUrl');
    const bodies = Object.values(
      docs.paths['/checkout/sessions/{id}/payment-method'].post.requestBody!.content['application/json'].examples!,
    ).map((example) => example.value);
    expect(bodies).toHaveLength(2);
    for (const body of bodies) expect('token' in body && 'card' in body).toBe(false);
  });

  it('describes the admin key as a plain bearer key, not a JWT', () => {
    expect(docs.components.securitySchemes.admin).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(docs.components.securitySchemes.admin).not.toHaveProperty('bearerFormat');
  });
});
