import { onSurface } from '../utils/surface';
import request from 'supertest';
import { OutboundRateLimiter } from '../../src/upstream/outbound-rate-limiter';
import { AppsOnSandboxProcess, freshReservationIn, startAppsOnSandboxProcess } from '../utils/sandbox-process';

/**
 * The limiter counts a call when it grants the slot, the platform when the request arrives. A
 * replica whose loop stalls between the two sends late, and those calls must not share a platform
 * window with calls granted after them. The sandbox runs in its own process, as the platform does,
 * so the test's stalls cannot bunch what it counts.
 */
describe('the upstream budget under a stalled replica', () => {
  let world: AppsOnSandboxProcess;

  afterEach(async () => {
    await world.close();
  });

  it('sends no more than the platform allows in any of its windows when granted calls leave late', async () => {
    // The platform's published limits, on both sides (15/s, 120/min). Thirty guests, each from an
    // address of their own, on reservations the platform announced: a network's lookups, and a
    // replica's finds of ids it does not know, go a few at a time (spec §7), and the stall below,
    // held until thirty grants, would hold those few.
    world = await startAppsOnSandboxProcess(1, { env: { TRUST_PROXY: '1' }, webhooks: true });
    const limiter = world.apps[0].app.get(OutboundRateLimiter);
    const acquire = limiter.acquire.bind(limiter);
    let granted = 0;
    let releaseStalled!: () => void;
    const stalledUntil = new Promise<void>((resolve) => (releaseStalled = resolve));
    // A second's worth of calls is held after its grant until the next second's calls are granted:
    // the moment a stalled loop wakes up and sends both at once. On the current surface a session's
    // reads wait for its Reservations V3 read, so the stall begins after those (a held read would
    // hold every call after it).
    const first = onSurface({ legacy: 1, current: 6 });
    jest.spyOn(limiter, 'acquire').mockImplementation(async (...args) => {
      const grant = await acquire(...args);
      granted += 1;
      const mine = granted;
      if (mine === first + 29) releaseStalled();
      if (mine >= first && mine < first + 15) await stalledUntil;
      return grant;
    });

    const reservations = [];
    for (let i = 0; i < 30; i += 1) {
      const { reservationId, guestEmail } = await freshReservationIn(world.sandbox);
      reservations.push({ reservationId, email: guestEmail });
    }
    await world.sandbox.control('webhooksSettled');
    const sessions = await Promise.all(
      reservations.map((body, guest) =>
        request(world.apps[0].url)
          .post('/checkout/sessions')
          .set('X-Forwarded-For', `198.51.100.${guest + 1}`)
          .send(body),
      ),
    );

    expect(granted).toBeGreaterThanOrEqual(first + 29);
    expect((await world.sandbox.control('counters')).rateLimited).toBe(0);
    expect(sessions.map((answer) => answer.status)).toEqual(Array(30).fill(201));
  });
});
