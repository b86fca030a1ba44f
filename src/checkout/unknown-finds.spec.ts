import { UnknownFinds } from './unknown-finds';

const ALLOWANCE = { misses: 3, windowMs: 60_000, waitMs: 2_000 };

describe('UnknownFinds: unknown reservation ids found at checkout priority (docs/product-spec.md §7)', () => {
  afterEach(() => jest.useRealTimers());

  it('lets misses and finds on their way reach the allowance; one more waits for a find to end', async () => {
    const finds = new UnknownFinds(() => 0, ALLOWANCE);
    const taken = await Promise.all([finds.take(), finds.take(), finds.take()]);
    expect(taken.every((find) => find !== null)).toBe(true);
    let next: { ended(missed: boolean): void } | null | undefined;
    const waiting = finds.take().then((find) => (next = find));
    await Promise.resolve();
    expect(next).toBeUndefined();
    // A guest's find that found a reservation frees its place: the waiting one goes at checkout priority.
    taken[0]!.ended(false);
    await waiting;
    expect(next).not.toBeNull();
  });

  it('sends a find to the anonymous share once the window’s misses fill the allowance, until they age out', async () => {
    let now = 0;
    const finds = new UnknownFinds(() => now, ALLOWANCE);
    const missed = await finds.take();
    missed!.ended(true);
    // Told twice, counted once.
    missed!.ended(true);
    (await finds.take())!.ended(true);
    (await finds.take())!.ended(true);
    await expect(finds.take()).resolves.toBeNull();
    now += 59_999;
    await expect(finds.take()).resolves.toBeNull();
    now += 1;
    await expect(finds.take()).resolves.not.toBeNull();
  });

  it('a burst of guesses reads at checkout priority no more than the allowance, however many arrive at once', async () => {
    jest.useFakeTimers();
    const finds = new UnknownFinds(() => Date.now(), ALLOWANCE);
    const burst = Array.from({ length: 20 }, () => finds.take());
    const first = (await Promise.all(burst.slice(0, 3))) as { ended(missed: boolean): void }[];
    // They all miss; every one waiting then goes to the anonymous share.
    for (const find of first) find.ended(true);
    expect(await Promise.all(burst.slice(3))).toEqual(Array(17).fill(null));
  });

  it('a find that waited its whole wait goes to the anonymous share', async () => {
    jest.useFakeTimers();
    const finds = new UnknownFinds(() => Date.now(), ALLOWANCE);
    await Promise.all([finds.take(), finds.take(), finds.take()]);
    const late = finds.take();
    await jest.advanceTimersByTimeAsync(ALLOWANCE.waitMs);
    await expect(late).resolves.toBeNull();
  });

  it('frees a find’s place when its find read answers, and still counts the wrong email learnt after it', async () => {
    const finds = new UnknownFinds(() => 0, ALLOWANCE);
    const guesses = await Promise.all([finds.take(), finds.take(), finds.take()]);
    for (const find of guesses) find!.ended(false);
    // The three were real reservations asked with wrong emails: each a miss, counted once.
    for (const find of guesses) {
      find!.ended(true);
      find!.ended(true);
    }
    await expect(finds.take()).resolves.toBeNull();
  });

  it('counts only misses: finds that found a reservation never send the next ones to the anonymous share', async () => {
    const finds = new UnknownFinds(() => 0, ALLOWANCE);
    for (let i = 0; i < 100; i += 1) (await finds.take())!.ended(false);
    await expect(finds.take()).resolves.not.toBeNull();
  });
});
