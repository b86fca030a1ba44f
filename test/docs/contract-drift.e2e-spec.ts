import request from 'supertest';
import { contractDrift, undocumentedAnswers } from '../utils/contract-drift';
import { startTestApp, TestApp } from '../utils/test-app';

/**
 * The drift check every test app runs when it closes (test/utils/test-app.ts): a status a documented route answered
 * but does not document fails that test file. Here it is shown to notice drift, and to pass real answers.
 */
describe('the contract-drift check', () => {
  const document = {
    paths: {
      '/checkout/sessions/{id}': { get: { responses: { '200': { description: 'the session' }, '404': { description: 'unknown' } } } },
      '/test/echo': { post: { responses: { '201': { description: 'a probe of test/utils' } } } },
    },
  };

  it('names a status a documented route answered without documenting it', () => {
    expect(
      undocumentedAnswers(document, [
        { method: 'GET', route: '/checkout/sessions/:id', status: 200 },
        { method: 'GET', route: '/checkout/sessions/:id', status: 500 },
      ]),
    ).toEqual(['GET /checkout/sessions/{id} answered 500, which /docs-json does not document for it']);
  });

  it('leaves out routes that are not the contract (unmatched paths, undocumented routes and methods, test probes)', () => {
    expect(
      undocumentedAnswers(document, [
        { method: 'GET', route: 'unmatched', status: 404 },
        { method: 'POST', route: '/webhooks/guesty', status: 401 },
        { method: 'HEAD', route: '/checkout/sessions/:id', status: 200 },
        { method: 'POST', route: '/test/echo', status: 413 },
      ]),
    ).toEqual([]);
  });

  describe('on a running service', () => {
    let service: TestApp;

    beforeAll(async () => {
      service = await startTestApp();
    });

    afterAll(async () => {
      await service.close();
    });

    it('finds the answers the site really got documented: an unknown session, a bad body, a form, a bad calendar range', async () => {
      await request(service.url).get('/checkout/sessions/cs_unknown').expect(404);
      await request(service.url).post('/checkout/sessions').set('Content-Type', 'application/json').send('{"reservationId":').expect(400);
      await request(service.url).post('/checkout/quotes').type('form').send('listingId=x').expect(415);
      await request(service.url).get('/checkout/listings/listing-usd/calendar?from=2031-07-10&to=2031-07-01').expect(400);
      expect(await contractDrift(service.app)).toEqual([]);
    });
  });
});
