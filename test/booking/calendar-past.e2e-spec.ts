import { upstreamRequests } from '../utils/checkout-client';
import { SandboxedApps, startSandboxedApps } from '../utils/sandboxed-apps';
import { bookingClient } from './booking-client';

const DAY_MS = 24 * 3600 * 1000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);

interface Day {
  date: string;
  available: boolean;
  checkInAllowed: boolean;
  checkOutAllowed: boolean;
}

/** docs/product-spec.md §7: the calendar never offers the past, and refuses ranges that start well before today. */
describe('the calendar and the past', () => {
  let world: SandboxedApps;

  beforeAll(async () => {
    world = await startSandboxedApps(1, { env: { CHECKOUT_IP_READ_LIMIT: '10000/m', UPSTREAM_ANONYMOUS_SHARE: '100' } });
  });

  afterAll(() => world.close());

  it.each([
    ['a range in 2020', '2020-03-01', '2020-03-31'],
    ['a range starting two days ago', day(-2), day(5)],
  ])('refuses %s with 400 naming from, asking nothing upstream', async (_name, from, to) => {
    const before = upstreamRequests(world);
    const answer = await bookingClient(world.apps[0].url).calendar('lst-seaside', from, to).expect(400);
    expect(answer.body.code).toBe('validation_failed');
    expect(answer.body.errors).toEqual([{ field: 'from', message: expect.stringMatching(/past/) }]);
    expect(upstreamRequests(world)).toBe(before);
  });

  it('answers yesterday (today somewhere behind UTC) as unavailable, and today onwards as the platform says', async () => {
    const answer = await bookingClient(world.apps[0].url).calendar('lst-seaside', day(-1), day(3)).expect(200);
    const days = answer.body.days as Day[];
    expect(days.map((entry) => entry.date)).toEqual([day(-1), day(0), day(1), day(2), day(3)]);
    expect(days[0]).toMatchObject({ available: false, checkInAllowed: false, checkOutAllowed: false });
    expect(days.slice(1).some((entry) => entry.available && entry.checkInAllowed)).toBe(true);
  });
});
