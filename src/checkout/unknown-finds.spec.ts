import { UnknownFinds } from './unknown-finds';

describe('UnknownFinds: unknown reservation ids found at checkout priority (docs/product-spec.md §7)', () => {
  it('lets so many finds be on their way at once; one that ends frees its place', () => {
    let now = 0;
    const finds = new UnknownFinds(() => now, { misses: 5, atOnce: 3, windowMs: 60_000 });
    const taken = [finds.take(), finds.take(), finds.take()];
    expect(taken.every((find) => find !== null)).toBe(true);
    expect(finds.take()).toBeNull();
    taken[0]!.ended(false);
    now += 1;
    expect(finds.take()).not.toBeNull();
  });

  it('keeps a miss for the window, so a flood of guesses goes to the anonymous share until misses age out', () => {
    let now = 0;
    const finds = new UnknownFinds(() => now, { misses: 2, atOnce: 20, windowMs: 60_000 });
    finds.take()!.ended(true);
    const missed = finds.take()!;
    missed.ended(true);
    // Told twice, counted once.
    missed.ended(true);
    expect(finds.take()).toBeNull();
    now += 59_999;
    expect(finds.take()).toBeNull();
    now += 1;
    expect(finds.take()).not.toBeNull();
  });

  it('once a miss was seen, lets no more finds be on their way than misses are left', () => {
    const finds = new UnknownFinds(() => 0, { misses: 3, atOnce: 20, windowMs: 60_000 });
    finds.take()!.ended(true);
    expect([finds.take(), finds.take()].every((find) => find !== null)).toBe(true);
    expect(finds.take()).toBeNull();
  });

  it('counts only misses: finds that found a reservation never send the next ones to the anonymous share', () => {
    const finds = new UnknownFinds(() => 0, { misses: 2, atOnce: 20, windowMs: 60_000 });
    for (let i = 0; i < 100; i += 1) finds.take()!.ended(false);
    expect(finds.take()).not.toBeNull();
  });
});
