import request from 'supertest';
import { OutboundRateLimiter } from '../../src/upstream/outbound-rate-limiter';
import { freshReservation } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/**
 * The limiter counts a call when it grants the slot, the platform when the request arrives. A replica
 * whose loop stalls between the two (a long garbage collection, a busy core) sends late, and its late
 * calls must not land in one platform window with the calls granted after them.
 */
describe('the upstream budget under a stalled replica', () => {
  let world: SandboxedApps;

  afterEach(async () => {
    await world.close();
  });

  it('sends no more than the platform allows in any of its windows when granted calls leave late', async () => {
    // The platform's published limits, on both sides (15/s, 120/min).
    world = await startSandboxedApps(1);
    const limiter = world.apps[0].app.get(OutboundRateLimiter);
    const acquire = limiter.acquire.bind(limiter);
    let granted = 0;
    let releaseStalled!: () => void;
    const stalledUntil = new Promise<void>((resolve) => (releaseStalled = resolve));
    // The first second's calls are held after their grant until the next second's calls are granted:
    // the moment a stalled loop wakes up and sends both at once.
    jest.spyOn(limiter, 'acquire').mockImplementation(async (...args) => {
      const grant = await acquire(...args);
      granted += 1;
      if (granted === 30) releaseStalled();
      if (granted <= 15) await stalledUntil;
      return grant;
    });

    const sessions = await Promise.all(
      Array.from({ length: 30 }, () => {
        const { reservationId, guestEmail } = freshReservation(world);
        return request(world.apps[0].url).post('/checkout/sessions').send({ reservationId, email: guestEmail });
      }),
    );

    expect(granted).toBeGreaterThanOrEqual(30);
    expect(world.sandbox.control.counters.rateLimited).toBe(0);
    expect(sessions.map((answer) => answer.status)).toEqual(Array(30).fill(201));
  });
});
