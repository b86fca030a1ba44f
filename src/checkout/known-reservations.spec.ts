import { journalWorld } from '../../test/utils/unit-kit';
import { KnownReservations } from './known-reservations';
import { UNKNOWN_FIND_MISSES } from './unknown-finds';

function setUp() {
  const world = journalWorld();
  const known = new KnownReservations(world.store, world.keys, world.ciphers);
  const record = async (reservationId: string) => {
    const read = known.read(reservationId);
    return read.open(await world.store.get(read.key));
  };
  return { world, known, record };
}

describe('KnownReservations: which share a session open reads at (docs/product-spec.md §7)', () => {
  it('finds an id it never heard of at checkout priority while few were misses, then at the anonymous share', async () => {
    const { known, record } = setUp();
    for (let i = 0; i < UNKNOWN_FIND_MISSES; i += 1) {
      const shares = known.sharesOf(await record(`res-guess-${i}`), 'guest@example.com');
      expect(shares).toMatchObject({ find: 'checkout', rest: 'checkout' });
      shares.ended(true);
    }
    // Found at the anonymous share; once found, what is read of it goes at checkout priority.
    expect(known.sharesOf(await record('res-1'), 'guest@example.com')).toMatchObject({ find: 'anonymous', rest: 'checkout' });
  });

  it('reads a reservation the platform announced at checkout priority, whatever email comes first', async () => {
    const { known, record } = setUp();
    await known.onReservationChanged({ type: 'reservation.created.v2', reservationId: 'res-1' });
    expect(known.sharesOf(await record('res-1'), 'anyone@example.com')).toMatchObject({ find: 'checkout', rest: 'checkout' });
  });

  it('once the platform announces the account’s reservations, finds every id it does not know at the anonymous share, on every replica', async () => {
    const { known, record, world } = setUp();
    const other = new KnownReservations(world.store, world.keys, world.ciphers);
    await known.onReservationChanged({ type: 'reservation.created.v2', reservationId: 'res-1' });
    expect(known.sharesOf(await record('res-guess'), 'guest@example.com')).toMatchObject({ find: 'anonymous', rest: 'checkout' });
    // The replica that did not hear the webhook learns it from the store.
    await other.checkAnnouncing();
    expect(other.sharesOf(await record('res-guess'), 'guest@example.com')).toMatchObject({ find: 'anonymous', rest: 'checkout' });
  });

  it('once its guest’s email was seen, reads only that email at checkout priority, in any case or spacing', async () => {
    const { known, record, world } = setUp();
    await known.onReservationChanged({ type: 'reservation.created.v2', reservationId: 'res-1' });
    await known.seen('res-1', 'Guest@Example.com', await record('res-1'));
    expect(known.sharesOf(await record('res-1'), ' guest@example.COM ')).toMatchObject({ find: 'checkout', rest: 'checkout' });
    expect(known.sharesOf(await record('res-1'), 'other@example.com')).toMatchObject({ find: 'anonymous', rest: 'anonymous' });
    // A webhook about it later keeps what was seen; the email itself is nowhere in the store.
    await known.onReservationChanged({ type: 'reservation.updated.v2', reservationId: 'res-1' });
    expect(known.sharesOf(await record('res-1'), 'other@example.com').find).toBe('anonymous');
    const stored = await world.store.get(world.keys.knownReservation('res-1'));
    expect(stored).not.toMatch(/guest|example/i);
  });

  it('writes nothing when what it read says so already, and hears only reservation events that name one', async () => {
    const { known, record, world } = setUp();
    await known.seen('res-1', 'guest@example.com', await record('res-1'));
    expect(known.seenSteps('res-1', 'guest@example.com', await record('res-1'))).toEqual([]);
    await known.onReservationChanged({ type: 'calendar.updated.v2', reservationId: 'res-2', listingId: 'lst-1' });
    await known.onReservationChanged({ type: 'reservation.created.v2' });
    expect(await world.store.get(world.keys.knownReservation('res-2'))).toBeNull();
  });
});
