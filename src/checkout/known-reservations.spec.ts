import { journalWorld } from '../../test/utils/unit-kit';
import { KnownReservations } from './known-reservations';
import { UNKNOWN_FIND_MISSES } from './unknown-finds';

function setUp() {
  const world = journalWorld();
  const replica = () => new KnownReservations(world.store, world.keys, world.ciphers, world.outbox);
  const known = replica();
  const record = async (reservationId: string) => {
    const read = known.read(reservationId);
    return read.open(await world.store.get(read.key));
  };
  const sharesOf = async (reservationId: string, email: string, on = known) =>
    on.sharesOf(reservationId, await record(reservationId), email);
  return { world, known, replica, record, sharesOf };
}

const announce = (known: KnownReservations, reservationId?: string) =>
  known.onReservationChanged({ type: 'reservation.created.v2', ...(reservationId ? { reservationId } : {}) });

describe('KnownReservations: which share a session open reads at (docs/product-spec.md §7)', () => {
  it('finds an id it never heard of at checkout priority while few were misses, then at the anonymous share', async () => {
    const { sharesOf } = setUp();
    for (let i = 0; i < UNKNOWN_FIND_MISSES; i += 1) {
      const shares = await sharesOf(`res-guess-${i}`, 'guest@example.com');
      expect(shares).toMatchObject({ find: 'checkout', rest: 'checkout' });
      shares.ended(true);
    }
    // Found at the anonymous share; once found, what is read of it goes at checkout priority.
    expect(await sharesOf('res-1', 'guest@example.com')).toMatchObject({ find: 'anonymous', rest: 'checkout' });
  });

  it('finds an id asked with a confirmation code by an allowance of its own, which guesses without one never spend', async () => {
    const { known, record } = setUp();
    const coded = async (reservationId: string) => known.sharesOf(reservationId, await record(reservationId), 'guest@example.com', true);
    for (let i = 0; i < UNKNOWN_FIND_MISSES; i += 1) {
      (await known.sharesOf(`res-guess-${i}`, await record(`res-guess-${i}`), 'guest@example.com')).ended(true);
    }
    await announce(known, 'res-announced');
    // Guesses without a code spent theirs, and the account announces: a guest with the code still reads at checkout.
    const guest = await coded('res-1');
    expect(guest).toMatchObject({ find: 'checkout', rest: 'checkout' });
    guest.ended(false);
    for (let i = 0; i < UNKNOWN_FIND_MISSES; i += 1) (await coded(`res-coded-guess-${i}`)).ended(true);
    expect(await coded('res-2')).toMatchObject({ find: 'anonymous', rest: 'checkout' });
  });

  it('reads a reservation the platform announced at checkout priority, whatever email comes first', async () => {
    const { known, sharesOf } = setUp();
    await announce(known, 'res-1');
    expect(await sharesOf('res-1', 'anyone@example.com')).toMatchObject({ find: 'checkout', rest: 'checkout' });
  });

  it('reads only the first lookup of an announced reservation at checkout priority while its guest’s email is not seen yet', async () => {
    const { known, sharesOf } = setUp();
    await announce(known, 'res-1');
    const first = await sharesOf('res-1', 'wrong-1@example.com');
    expect(first).toMatchObject({ find: 'checkout', rest: 'checkout' });
    // Wrong emails sent meanwhile (50 networks at once) are not all read at checkout priority.
    expect(await sharesOf('res-1', 'wrong-2@example.com')).toMatchObject({ find: 'anonymous', rest: 'anonymous' });
    first.ended(true);
    expect(await sharesOf('res-1', 'wrong-3@example.com')).toMatchObject({ find: 'checkout', rest: 'checkout' });
  });

  it('once the platform announces the account’s reservations, finds every id it does not know at the anonymous share, on every replica', async () => {
    const { known, replica, sharesOf } = setUp();
    const other = replica();
    await announce(known, 'res-1');
    expect(await sharesOf('res-guess', 'guest@example.com')).toMatchObject({ find: 'anonymous', rest: 'checkout' });
    // The replica that did not hear the webhook learns it from the store.
    await other.checkAnnouncing();
    expect(await sharesOf('res-guess', 'guest@example.com', other)).toMatchObject({ find: 'anonymous', rest: 'checkout' });
  });

  it('once its guest’s email was seen, reads only that email at checkout priority, in any case or spacing', async () => {
    const { known, record, world, sharesOf } = setUp();
    await announce(known, 'res-1');
    await known.seen('res-1', 'Guest@Example.com', await record('res-1'));
    expect(await sharesOf('res-1', ' guest@example.COM ')).toMatchObject({ find: 'checkout', rest: 'checkout' });
    expect(await sharesOf('res-1', 'other@example.com')).toMatchObject({ find: 'anonymous', rest: 'anonymous' });
    // A webhook about it later keeps what was seen; the email itself is nowhere in the store.
    await known.onReservationChanged({ type: 'reservation.updated.v2', reservationId: 'res-1' });
    expect((await sharesOf('res-1', 'other@example.com')).find).toBe('anonymous');
    const stored = await world.store.get(world.keys.knownReservation('res-1'));
    expect(stored).not.toMatch(/guest|example/i);
  });

  it('keeps one guest’s reservations unlinkable: the same email is a different digest on each', async () => {
    const { known, world, record } = setUp();
    await known.seen('res-1', 'guest@example.com', await record('res-1'));
    await known.seen('res-2', 'guest@example.com', await record('res-2'));
    const stored = await Promise.all(['res-1', 'res-2'].map((id) => world.store.get(world.keys.knownReservation(id))));
    expect(stored[0]).not.toBe(stored[1]);
  });

  it('a reservation the platform shows no email for is recorded so: no email reads it at checkout priority', async () => {
    const { known, record, sharesOf } = setUp();
    await announce(known, 'res-1');
    await known.seen('res-1', '', await record('res-1'));
    expect(await sharesOf('res-1', 'anyone@example.com')).toMatchObject({ find: 'anonymous', rest: 'anonymous' });
  });

  it('writes nothing when what it read says so already, and hears only reservation events that name one', async () => {
    const { known, record, world, replica, sharesOf } = setUp();
    await known.seen('res-1', 'guest@example.com', await record('res-1'));
    expect(known.seenSteps('res-1', 'guest@example.com', await record('res-1'))).toEqual([]);
    await known.onReservationChanged({ type: 'calendar.updated.v2', reservationId: 'res-2', listingId: 'lst-1' });
    await announce(known);
    expect(await world.store.get(world.keys.knownReservation('res-2'))).toBeNull();
    // Neither says the account announces its reservations: an unknown id is still found at checkout priority.
    const other = replica();
    await other.checkAnnouncing();
    expect(await sharesOf('res-guess', 'guest@example.com', other)).toMatchObject({ find: 'checkout' });
  });

  it('keeps an announcement the store did not take and writes it once the store is back', async () => {
    const { known, world, record } = setUp();
    world.store.down = true;
    await announce(known, 'res-1');
    world.store.down = false;
    expect((await record('res-1')).known).toBe(false);
    await world.outbox.flush();
    expect((await record('res-1')).known).toBe(true);
  });
});
