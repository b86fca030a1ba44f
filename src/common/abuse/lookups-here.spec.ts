import { LookupsHere } from './lookups-here';

describe('LookupsHere (a network’s reservation lookups as one replica sees them)', () => {
  let now = 0;
  const lookups = () => new LookupsHere(() => now, 60_000);

  beforeEach(() => (now = 0));

  it('lets a network that found reservations lately have one more lookup on its way for each distinct one, up to 50', () => {
    const here = lookups();
    expect(here.credit('203.0.113.7')).toBe(0);
    for (let i = 0; i < 3; i += 1) here.found('203.0.113.7', `res-${i}`);
    expect(here.credit('203.0.113.7')).toBe(3);
    expect(here.credit('203.0.113.8')).toBe(0);
    // Its own reservation opened again and again earns nothing more.
    for (let i = 0; i < 10; i += 1) here.found('203.0.113.7', 'res-0');
    expect(here.credit('203.0.113.7')).toBe(3);
    for (let i = 0; i < 100; i += 1) here.found('203.0.113.7', `more-${i}`);
    expect(here.credit('203.0.113.7')).toBe(50);
    now += 60_000;
    expect(here.credit('203.0.113.7')).toBe(0);
  });

  it('wakes the session opens waiting on a network when one of its lookups ends here, and no other network’s', async () => {
    const here = lookups();
    const woken: string[] = [];
    const waiting = [
      here.nextEnd('203.0.113.7', 60_000).then(() => woken.push('a')),
      here.nextEnd('203.0.113.7', 60_000).then(() => woken.push('b')),
    ];
    const other = here.nextEnd('203.0.113.8', 10).then(() => woken.push('other, by its own time'));
    here.ended('203.0.113.7');
    await Promise.all(waiting);
    expect(woken).toEqual(['a', 'b']);
    await other;
    expect(woken).toEqual(['a', 'b', 'other, by its own time']);
  });
});
