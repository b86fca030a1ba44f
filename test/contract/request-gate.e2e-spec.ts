import { productViolationReport, takeViolations } from '../../sandbox/open-api/contract-violations';
import { GuestyClient } from '../../src/upstream/guesty-client';
import type { QuoteRequest } from '../../src/upstream/guesty.types';
import { SandboxClient } from '../sandbox/sandbox-helpers';
import { startAppsOnSandboxProcess } from '../utils/sandbox-process';
import { startSandboxedApps, type SandboxedApps } from '../utils/sandboxed-apps';

/**
 * The contract gate on requests (sandbox/open-api/reference-gate.ts): every /v1 request is checked
 * against the reference's parameters and body schema, a request the reference refuses is refused 400
 * as the platform answers it, and the check after every e2e file (test/utils/contract-gate.ts) fails
 * the file when the product sent one, whichever test did.
 */
describe('requests checked against the reference (contract gate)', () => {
  let world: SandboxedApps;
  const stay = { listingId: 'lst-city', checkInDateLocalized: '2030-06-04', checkOutDateLocalized: '2030-06-06', source: 'website' };

  beforeAll(async () => {
    world = await startSandboxedApps(1);
  });
  afterAll(() => world.close());

  it("refuses a request of the product's the reference refuses, 400 as the platform, and the file's check fails on it", async () => {
    const client = world.apps[0].app.get(GuestyClient);
    const quotesBefore = world.sandbox.control.counters.requests.createQuote ?? 0;
    // The reference types guestsCount a number: a string sent by the product's own client.
    await expect(client.createQuote({ ...stay, guestsCount: '2' } as unknown as QuoteRequest)).rejects.toThrow();
    expect(world.sandbox.control.counters.requests.createQuote).toBe(quotesBefore + 1);
    expect(world.sandbox.control.requestLog.filter((entry) => entry.route === 'createQuote').map((entry) => entry.status)).toEqual([400]);

    const violations = takeViolations();
    expect(violations).toEqual([
      { operation: 'POST /quotes', path: '/v1/quotes', problems: [{ field: 'guestsCount', message: 'must be number' }], byProduct: true },
    ]);
    expect(productViolationReport(violations)).toContain('POST /quotes (/v1/quotes): guestsCount must be number');
    // Taken above, so this file passes; untaken, test/utils/contract-gate.ts throws that report after the file.
    expect(takeViolations()).toEqual([]);
  });

  it("takes the product's valid requests, and a test's own bad probe is refused without failing the suite", async () => {
    const client = world.apps[0].app.get(GuestyClient);
    const quote = await client.createQuote({ ...stay, guestsCount: 2 });
    expect(quote?.id).toEqual(expect.any(String));
    expect(takeViolations()).toEqual([]);

    const probe = await new SandboxClient(world.sandbox).api(
      '/v1/availability-pricing/api/calendar/listings/lst-city?startDate=2030-06-04',
    );
    // The reference's calendar refuses invalid parameters 422 ValidationError (its only documented refusal).
    expect(probe.status).toBe(422);
    expect(probe.body).toEqual({
      message: 'Some of the request parameters are invalid',
      code: 'ValidationError',
      details: [{ field: 'endDate', message: 'is required' }],
      requestId: expect.any(String),
    });
    const violations = takeViolations();
    expect(violations.map(({ operation, byProduct }) => ({ operation, byProduct }))).toEqual([
      { operation: 'GET /availability-pricing/api/calendar/listings/{id}', byProduct: false },
    ]);
    expect(productViolationReport(violations)).toBeNull();
  });

  it('fails the file on a request the product sent to a sandbox in a process of its own, too', async () => {
    const own = await startAppsOnSandboxProcess(1);
    try {
      const client = own.apps[0].app.get(GuestyClient);
      await expect(client.createQuote({ ...stay, guestsCount: '2' } as unknown as QuoteRequest)).rejects.toThrow();
      expect(
        (await own.sandbox.control('requestLog')).filter((entry) => entry.route === 'createQuote').map((entry) => entry.status),
      ).toEqual([400]);
    } finally {
      // Stopping hears the child's last violations first.
      await own.close();
    }
    const violations = takeViolations();
    expect(violations).toEqual([
      { operation: 'POST /quotes', path: '/v1/quotes', problems: [{ field: 'guestsCount', message: 'must be number' }], byProduct: true },
    ]);
    // Untaken, this is the report test/utils/contract-gate.ts throws after the file.
    expect(productViolationReport(violations)).toContain('POST /quotes (/v1/quotes): guestsCount must be number');
  });
});
