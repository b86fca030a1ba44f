import { cardBody, checkoutClient, freshReservation } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';

/** docs/product-spec.md §7: a session id is a capability; Redis names its keys by a digest of it. */
describe('session ids at rest', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, { sandbox: { paymentVisibilityDelayMs: 0 } });
  });

  afterAll(() => world.close());

  it('after a checkout, no Redis key name carries the raw session id', async () => {
    const { reservationId, guestEmail } = freshReservation(world);
    const site = checkoutClient(world.apps[0].url);
    const sessionId = (await site.createSession(reservationId, guestEmail).expect(201)).body.id as string;
    expect((await site.submit(sessionId, cardBody()).expect(200)).body.status).toBe('succeeded');
    const keys = await world.apps[0].redisKeys();
    expect(keys.some((key) => key.includes(':session:'))).toBe(true);
    expect(keys.filter((key) => key.includes(sessionId))).toEqual([]);
    // The guest's own URL keeps the id: the session still answers by it.
    expect((await site.getSession(sessionId).expect(200)).body.id).toBe(sessionId);
  });
});
