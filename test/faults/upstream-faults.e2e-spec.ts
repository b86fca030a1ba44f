import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SandboxRoute } from '../../sandbox/types';
import { cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { figures, latencySummary, Load, Shot, ShotRequest, shoot, startLoad, statusCounts, waitFor } from '../utils/load';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/*
 * The service's own timeout and deadline end these requests (the platform is slower than the
 * timeout, or fails every attempt): every request answered, with bounded attempts counted at the
 * sandbox, is the proof. Durations are printed, never asserted: on a loaded machine they are the
 * machine's (`npm run bench` measures them).
 */
const TIMEOUT_MS = 300;
const DEADLINE_MS = 1_500;
/**
 * The writes' world: a write's lost or late answer is under test, not the reads around it, which a
 * loaded machine must not push past a 300 ms timeout (8 presses at once read before they attach).
 */
const WRITE_TIMEOUT_MS = 1_000;
const WRITE_DEADLINE_MS = 5_000;
const CONCURRENCY = 10;
const CATALOGUE = [{ code: 'late-checkout', normalType: 'CF', title: 'Late checkout', amount: 40 }];

interface Fault {
  name: string;
  apply(world: SandboxedApps): void;
}

/** Reads that must go upstream every time: a checkout session's reservation, and listings nobody cached. */
const FAULTS: Fault[] = [
  {
    name: 'slow beyond the timeout',
    apply: (world) => {
      world.sandbox.control.setRouteDelay('reservation', TIMEOUT_MS * 3);
      world.sandbox.control.setRouteDelay('listing', TIMEOUT_MS * 3);
    },
  },
  {
    name: 'failing with 5xx',
    apply: (world) => {
      world.sandbox.control.forceStatus('reservation', 500);
      world.sandbox.control.forceStatus('listing', 503);
    },
  },
  {
    name: 'dropping connections',
    apply: (world) => {
      world.sandbox.control.dropConnection('reservation');
      world.sandbox.control.dropConnection('listing');
    },
  },
];

describe('upstream faults (2 replicas, the sandbox slow, failing or dropping connections)', () => {
  let world: SandboxedApps;
  const loads: Load[] = [];
  const requests = (route: SandboxRoute) => world.sandbox.control.counters.requests[route] ?? 0;
  const answered = (route: SandboxRoute) => world.sandbox.control.requestLog.filter((entry) => entry.route === route).length;
  const site = (replica = 0) => checkoutClient(world.apps[replica].url);

  async function paidSession(replica = 0): Promise<{ sessionId: string; reservationId: string; guestId: string }> {
    const reservation = freshReservation(world);
    const created = await site(replica).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
    await site(replica)
      .submit(created.body.id as string, cardBody())
      .expect(200);
    return { sessionId: created.body.id as string, reservationId: reservation.reservationId, guestId: reservation.guestId };
  }

  const extrasAt = (reservationId: string) =>
    (world.sandbox.control.getReservation(reservationId) as { money: { invoiceItems: { title: string }[] } }).money.invoiceItems.filter(
      (item) => item.title === 'Late checkout',
    );

  function expectCleanProblem(
    shot: Pick<Shot, 'status' | 'code' | 'contentType' | 'retryAfter' | 'body'>,
    code = 'upstream_unavailable',
  ): void {
    expect({ status: shot.status, code: shot.code }).toEqual({ status: 503, code });
    expect(shot.contentType).toMatch(/^application\/problem\+json/);
    expect(Number(shot.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(shot.body).toEqual(expect.objectContaining({ requestId: expect.any(String), detail: expect.any(String) }));
    // Nothing of the upstream's failure leaks: no axios error, no host, no stack.
    expect(JSON.stringify(shot.body)).not.toMatch(/ECONN|socket hang up|127\.0\.0\.1|axios|\bat .+\.js/i);
  }

  async function startWorld(timeoutMs: number, deadlineMs: number): Promise<SandboxedApps> {
    const started = await startSandboxedApps(2, {
      env: {
        UPSTREAM_TIMEOUT_MS: String(timeoutMs),
        UPSTREAM_DEADLINE_MS: String(deadlineMs),
        CHECKOUT_EXTRAS: JSON.stringify(CATALOGUE),
        CHECKOUT_IP_RATE_LIMIT: '100000/m',
        CHECKOUT_IP_READ_LIMIT: '100000/m',
        CHECKOUT_CARD_ATTEMPTS: '1000/h',
        // The faults, not the budget, are under test: a loaded machine's retries must not meet a share or the second's window.
        UPSTREAM_ANONYMOUS_SHARE: '100',
        UPSTREAM_RATE_LIMITS: '1000/s,60000/m,1000000/h',
      },
      sandbox: { paymentVisibilityDelayMs: 0, rateLimits: { perSecond: 1000, perMinute: 60_000, perHour: 1_000_000 } },
    });
    world = started;
    // The token and the providers' cache are in place: the faults below meet only the reads and writes under test.
    await paidSession(0);
    await paidSession(1);
    return started;
  }

  beforeAll(() => startWorld(TIMEOUT_MS, DEADLINE_MS));

  afterEach(async () => {
    await Promise.all(loads.splice(0).map((load) => load.stop()));
    world.sandbox.control.clearFaults();
  });

  afterAll(() => world?.close());

  it.each(FAULTS)(
    '$name, under load: every request answered with a clean problem, every read retried a bounded number of times; fine again once the fault ends',
    async (fault) => {
      fault.apply(world);
      const before = { reservation: requests('reservation'), listing: requests('listing') };
      // Every request its own upstream read (new reservations, listings nobody has cached), so the attempts can be counted.
      const load = startLoad(CONCURRENCY, (worker, turn): ShotRequest => {
        const url = world.apps[worker % 2].url;
        if ((worker + turn) % 2 === 0) {
          const reservation = freshReservation(world);
          return {
            op: 'createSession',
            target: String(worker % 2),
            method: 'POST',
            url: `${url}/checkout/sessions`,
            json: { reservationId: reservation.reservationId, email: reservation.guestEmail },
          };
        }
        return { op: 'listing', target: String(worker % 2), url: `${url}/checkout/listings/lst-${randomUUID().slice(0, 8)}` };
      });
      loads.push(load);
      await waitFor(() => load.shots.length >= CONCURRENCY, 20_000, `${CONCURRENCY} answers`);
      const shots = await load.stop();

      for (const shot of shots) {
        expect({ op: shot.op, answered: shot.status > 0 }).toEqual({ op: shot.op, answered: true });
        expectCleanProblem(shot);
      }
      const creates = shots.filter((shot) => shot.op === 'createSession').length;
      const listings = shots.filter((shot) => shot.op === 'listing').length;
      const attempts = { reservation: requests('reservation') - before.reservation, listing: requests('listing') - before.listing };
      expect(attempts.reservation).toBeGreaterThanOrEqual(2 * creates);
      expect(attempts.listing).toBeGreaterThanOrEqual(2 * listings);
      // Never more than the retry policy's five attempts per read.
      expect(attempts.reservation).toBeLessThanOrEqual(5 * creates);
      expect(attempts.listing).toBeLessThanOrEqual(5 * listings);
      figures(
        `upstream ${fault.name}: ${JSON.stringify(statusCounts(shots))}, ${latencySummary(shots)}; ` +
          `upstream attempts per read: reservation ${(attempts.reservation / creates).toFixed(1)}, listing ${(attempts.listing / listings).toFixed(1)}`,
      );

      world.sandbox.control.clearFaults();
      const reservation = freshReservation(world);
      await site(1).createSession(reservation.reservationId, reservation.guestEmail).expect(201);
      await request(world.apps[0].url).get('/checkout/listings/lst-mountain').expect(200);
    },
  );

  it('answers a read that finally succeeds, retried before its deadline: a slow first attempt, two 5xx, two dropped connections', async () => {
    const control = world.sandbox.control;

    // The first attempt is held beyond the timeout; the second is answered at once.
    control.setRouteDelay('reservation', TIMEOUT_MS * 3);
    let before = requests('reservation');
    const slow = freshReservation(world);
    const slowAnswer = shoot({
      op: 'createSession',
      target: '0',
      method: 'POST',
      url: `${world.apps[0].url}/checkout/sessions`,
      json: { reservationId: slow.reservationId, email: slow.guestEmail },
    });
    await waitFor(() => requests('reservation') > before, 5_000, 'the first attempt at the sandbox');
    control.setRouteDelay('reservation', 0);
    const slowShot = await slowAnswer;
    expect(slowShot.status).toBe(201);
    expect(requests('reservation') - before).toBeGreaterThanOrEqual(2);
    // The held first attempt is still at the sandbox, which takes a fault once a request's delay is
    // over: it must have ended before the drops below are set, or it takes one of them (under load it did).
    await waitFor(() => answered('reservation') === requests('reservation'), TIMEOUT_MS * 10, 'the held first attempt to end');

    control.forceStatus('listing', 502, { times: 2 });
    before = requests('listing');
    const failing = await shoot({ op: 'listing', target: '1', url: `${world.apps[1].url}/checkout/listings/lst-city` });
    expect(failing.status).toBe(200);
    expect(failing.body).toMatchObject({ id: 'lst-city', city: 'Paris' });
    expect(requests('listing') - before).toBe(3);

    control.dropConnection('reservation', { times: 2 });
    before = requests('reservation');
    const dropped = freshReservation(world);
    const droppedShot = await shoot({
      op: 'createSession',
      target: '1',
      method: 'POST',
      url: `${world.apps[1].url}/checkout/sessions`,
      json: { reservationId: dropped.reservationId, email: dropped.guestEmail },
    });
    expect(droppedShot.status).toBe(201);
    expect(requests('reservation') - before).toBe(3);

    figures(
      `reads that finally succeed: slow first attempt ${Math.round(slowShot.ms)} ms, two 502s ${Math.round(failing.ms)} ms, two dropped connections ${Math.round(droppedShot.ms)} ms`,
    );
  });

  describe('writes are never sent twice (counted at the sandbox)', () => {
    let readsWorld: SandboxedApps;
    beforeAll(async () => {
      readsWorld = world;
      await startWorld(WRITE_TIMEOUT_MS, WRITE_DEADLINE_MS);
    });
    afterAll(async () => {
      await world.close();
      world = readsWorld;
    });

    async function submitted(count: number) {
      const sessions = await Promise.all(
        Array.from({ length: count }, async (_, index) => {
          const reservation = freshReservation(world);
          const created = await site(index % 2)
            .createSession(reservation.reservationId, reservation.guestEmail)
            .expect(201);
          return { replica: index % 2, sessionId: created.body.id as string, guestId: reservation.guestId, key: randomUUID() };
        }),
      );
      return sessions;
    }

    const submit = (session: { replica: number; sessionId: string; key: string }) =>
      shoot({
        op: 'paymentMethod',
        target: String(session.replica),
        method: 'POST',
        url: `${world.apps[session.replica].url}/checkout/sessions/${session.sessionId}/payment-method`,
        json: cardBody(),
        headers: { 'Idempotency-Key': session.key },
      });

    /** The session as the site reads it, and the reservation's payment methods at the sandbox. */
    async function outcome(session: { replica: number; sessionId: string; guestId: string }) {
      const view = await request(world.apps[session.replica].url).get(`/checkout/sessions/${session.sessionId}`).expect(200);
      return {
        session: view.body as { status: string; paymentMethod?: { id: string }; lastError?: { code: string } },
        methods: world.sandbox.control.getPaymentMethods(session.guestId),
      };
    }

    it('attaches whose answer is lost after the upstream attached them (concurrent submissions): found on the reservation, never sent twice, and a retry attaches nothing', async () => {
      const sessions = await submitted(8);
      world.sandbox.control.dropConnection('paymentMethods', { afterHandling: true, times: 4 });
      const before = requests('paymentMethods');
      const shots = await Promise.all(sessions.map(submit));

      for (const shot of shots) {
        expect({
          status: shot.status,
          session: (shot.body as { status: string }).status,
          body: shot.status === 200 ? undefined : shot.body,
        }).toEqual({ status: 200, session: 'succeeded', body: undefined });
      }
      expect(requests('paymentMethods') - before).toBe(8);
      for (const session of sessions) {
        const { session: view, methods } = await outcome(session);
        expect(methods).toHaveLength(1);
        expect(view).toMatchObject({ status: 'succeeded', paymentMethod: { id: methods[0]._id } });
      }
      // The site retries with the same key (e.g. its own connection dropped): the stored answer, no attach.
      const retries = await Promise.all(sessions.map(submit));
      for (const [index, retry] of retries.entries())
        expect({ status: retry.status, body: retry.body }).toEqual({ status: 200, body: shots[index].body });
      expect(requests('paymentMethods') - before).toBe(8);
      for (const session of sessions) expect(world.sandbox.control.getPaymentMethods(session.guestId)).toHaveLength(1);
      figures(
        `attach answers lost after handling (4 of 8): ${JSON.stringify(statusCounts(shots))}, ${latencySummary(shots)}, attaches sent ${requests('paymentMethods') - before} for 8 submissions and 8 retries`,
      );
    });

    it('an attach slower than the timeout is not sent again: the one the upstream carries out is found and is the only one', async () => {
      const [session] = await submitted(1);
      world.sandbox.control.setRouteDelay('paymentMethods', WRITE_TIMEOUT_MS * 3);
      const before = requests('paymentMethods');
      const shot = await submit(session);
      expect({ status: shot.status, session: (shot.body as { status: string }).status }).toEqual({ status: 200, session: 'succeeded' });
      const { session: view, methods } = await outcome(session);
      expect(methods).toHaveLength(1);
      expect(view.paymentMethod?.id).toBe(methods[0]._id);
      expect(requests('paymentMethods') - before).toBe(1);
      figures(`attach slower than the timeout: ${shot.status} in ${Math.round(shot.ms)} ms, attaches sent 1`);
    });

    it("an attach answered 500 is not retried by the service: outcome pending until the settle horizon, then the site's retry with the same key attaches once", async () => {
      const [session] = await submitted(1);
      world.sandbox.control.forceStatus('paymentMethods', 500, { times: 1 });
      const before = requests('paymentMethods');
      const shot = await submit(session);
      // A 500 does not prove the platform will not act later: never "failed", never "safe to retry".
      expectCleanProblem(shot, 'outcome_pending');
      expect(JSON.stringify(shot.body)).not.toMatch(/safe to retry|nothing was changed/i);
      expect(requests('paymentMethods') - before).toBe(1);
      const pending = await outcome(session);
      expect(pending.methods).toHaveLength(0);
      expect(pending.session.status).toBe('processing');
      const early = await submit(session);
      expect({ status: early.status, code: early.code }).toEqual({ status: 503, code: 'outcome_pending' });
      expect(requests('paymentMethods') - before).toBe(1);
      // Past WRITE_SETTLE_SECONDS with nothing on the reservation, the attach surely did not land.
      for (const clock of world.clocks) clock.advance(121_000);
      const retry = await submit(session);
      expect({ status: retry.status, session: (retry.body as { status: string }).status }).toEqual({ status: 200, session: 'succeeded' });
      expect(requests('paymentMethods') - before).toBe(2);
      expect(world.sandbox.control.getPaymentMethods(session.guestId)).toHaveLength(1);
      figures(`attach answered 500: ${shot.status} ${shot.code} in ${Math.round(shot.ms)} ms after re-reading the reservation`);
    });

    it.each([
      {
        name: 'its answer lost after the upstream added it',
        apply: () => world.sandbox.control.dropConnection('invoiceItems', { afterHandling: true, times: 1 }),
      },
      { name: 'slower than the timeout', apply: () => world.sandbox.control.setRouteDelay('invoiceItems', WRITE_TIMEOUT_MS * 3) },
    ])('an extras invoice item $name is written once, and the answer says it was added', async ({ apply }) => {
      const paid = await paidSession(1);
      apply();
      const before = requests('invoiceItems');
      const key = randomUUID();
      const add = () =>
        shoot({
          op: 'extras',
          target: '1',
          method: 'POST',
          url: `${world.apps[1].url}/checkout/sessions/${paid.sessionId}/extras`,
          json: { items: [{ code: 'late-checkout' }] },
          headers: { 'Idempotency-Key': key },
        });
      const shot = await add();
      expect(shot.status).toBe(201);
      await waitFor(() => extrasAt(paid.reservationId).length > 0, 5_000, 'the item to land');
      expect(requests('invoiceItems') - before).toBe(1);
      expect(extrasAt(paid.reservationId)).toHaveLength(1);
      expect(shot.body).toEqual({
        items: [expect.objectContaining({ code: 'late-checkout', amount: 40, invoiceItemId: expect.any(String) })],
      });
      // The client's retry with the same key is answered from the record: still one item, one write.
      world.sandbox.control.clearFaults();
      const again = await add();
      expect(again.status).toBe(201);
      expect(again.body).toEqual(shot.body);
      expect(requests('invoiceItems') - before).toBe(1);
      expect(extrasAt(paid.reservationId)).toHaveLength(1);
      figures(`extras write ${shot.status} in ${Math.round(shot.ms)} ms, invoice-item writes sent 1`);
    });
  });
});
