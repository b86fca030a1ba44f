import { journalWorld, quietLogs, unitModule } from '../../test/utils/unit-kit';
import { GuestyClient } from '../upstream/guesty-client';
import { InvoiceItemRequest, InvoiceLine } from '../upstream/platform-results';
import { UpstreamError } from '../upstream/upstream-error';
import { InvoiceItemsService } from './invoice-items.service';

const RESERVATION = 'res-1';
const LATE_CHECKOUT: InvoiceItemRequest = { normalType: 'AFE', secondIdentifier: 'LATE_CHECKOUT', title: 'Late checkout', amount: 40 };
const CLEANING: InvoiceItemRequest = { normalType: 'CF', title: 'Extra cleaning', amount: 35 };

/** A reservation's folio at the platform, and the faults of its next write or reads. */
class FakeFolio {
  items: InvoiceLine[] = [{ id: 'ii_af', title: 'Accommodation fare', amount: 500, normalType: 'AF' }];
  writes: InvoiceItemRequest[] = [];
  nextWrite: 'answer' | 'lose-answer' | 'fail-before' | 'refuse' = 'answer';
  readsFail = false;
  /** Runs once a write has reached the platform, before its answer goes back. */
  afterWrite?: () => void;

  asClient(): GuestyClient {
    const client: Partial<GuestyClient> = {
      getReservation: () => {
        if (this.readsFail)
          return Promise.reject(
            new UpstreamError('upstream_unavailable', 'down', { operation: 'getReservation', maybeSent: true, upstreamStatus: 503 }),
          );
        return Promise.resolve({ id: RESERVATION, listingId: 'lst-1', guestId: 'g', money: { folio: [...this.items] } });
      },
      addInvoiceItem: (_reservationId, item) => {
        this.writes.push(item);
        this.afterWrite?.();
        const behaviour = this.nextWrite;
        this.nextWrite = 'answer';
        const lost = new UpstreamError('upstream_unavailable', 'socket hang up', { operation: 'addInvoiceItem', maybeSent: true });
        if (behaviour === 'fail-before') return Promise.reject(lost);
        if (behaviour === 'refuse') {
          return Promise.reject(
            new UpstreamError('upstream_error', 'refused', {
              operation: 'addInvoiceItem',
              maybeSent: true,
              upstreamStatus: 400,
              upstreamMessage: 'Some of the request parameters are invalid',
            }),
          );
        }
        const added = { ...item, id: `ii_${this.writes.length}` };
        this.items.push(added);
        return behaviour === 'lose-answer' ? Promise.reject(lost) : Promise.resolve({ item: added });
      },
    };
    return client as GuestyClient;
  }

  like(title: string): number {
    return this.items.filter((item) => item.title === title).length;
  }
}

beforeAll(quietLogs);

async function setUp() {
  const folio = new FakeFolio();
  const world = journalWorld({}, { guesty: folio.asClient() });
  const { clock, store, outbox } = world;
  const items = (await unitModule(world, [InvoiceItemsService])).get(InvoiceItemsService);
  const add = (lines: InvoiceItemRequest[], scope: string) => items.addAll(RESERVATION, lines, 'checkout', scope);
  return { clock, store, outbox, folio, add };
}

describe('InvoiceItems (each line through the write journal)', () => {
  it('adds each line once; the same request again is answered from the journal', async () => {
    const world = await setUp();
    const added = await world.add([LATE_CHECKOUT, CLEANING], 'request-1');
    expect(added.map((item) => [item._id, item.title])).toEqual([
      ['ii_1', 'Late checkout'],
      ['ii_2', 'Extra cleaning'],
    ]);
    await expect(world.add([LATE_CHECKOUT, CLEANING], 'request-1')).resolves.toEqual(added);
    expect(world.folio.writes).toHaveLength(2);
  });

  it('finds a line whose answer was lost on the folio: added once, answered with its id', async () => {
    const world = await setUp();
    world.folio.nextWrite = 'lose-answer';
    const [added] = await world.add([LATE_CHECKOUT], 'request-1');
    expect(added).toMatchObject({ _id: 'ii_1', title: 'Late checkout' });
    expect(world.folio.like('Late checkout')).toBe(1);
    expect(world.folio.writes).toHaveLength(1);
  });

  it('after a line that did not land, the same request adds the rest once (never the first line twice)', async () => {
    const world = await setUp();
    // The first line lands; the second write fails before the platform acts on it.
    world.folio.afterWrite = () => {
      if (world.folio.writes.length === 2) world.folio.nextWrite = 'fail-before';
    };
    const unclear = await world.add([LATE_CHECKOUT, CLEANING], 'request-1').catch((error: unknown) => error);
    // The platform may still carry it out: outcome pending, and the same request before the horizon sends nothing.
    expect(unclear).toMatchObject({ code: 'outcome_pending', status: 503 });
    expect(world.folio.writes.map((item) => item.title)).toEqual(['Late checkout', 'Extra cleaning']);
    world.folio.afterWrite = undefined;
    await expect(world.add([LATE_CHECKOUT, CLEANING], 'request-1')).rejects.toMatchObject({ code: 'outcome_pending' });
    expect(world.folio.writes).toHaveLength(2);
    // "Not there" is believed only once the settle horizon (WRITE_SETTLE_SECONDS) has passed.
    world.clock.time += 120_000;
    const retried = await world.add([LATE_CHECKOUT, CLEANING], 'request-1');
    expect(retried.map((item) => item.title)).toEqual(['Late checkout', 'Extra cleaning']);
    expect(world.folio.like('Late checkout')).toBe(1);
    expect(world.folio.like('Extra cleaning')).toBe(1);
  });

  it('keeps a line it cannot check open: outcome_pending, and no other write on the reservation is sent', async () => {
    const world = await setUp();
    world.folio.nextWrite = 'lose-answer';
    // The snapshot before the write is read; every read after it fails.
    world.folio.afterWrite = () => (world.folio.readsFail = true);
    await expect(world.add([LATE_CHECKOUT], 'request-1')).rejects.toMatchObject({ code: 'outcome_pending', status: 503 });
    await expect(world.add([CLEANING], 'request-2')).rejects.toMatchObject({ code: 'outcome_pending' });
    expect(world.folio.writes).toHaveLength(1);
    world.folio.afterWrite = undefined;
    world.folio.readsFail = false;
    await expect(world.add([LATE_CHECKOUT], 'request-1')).resolves.toEqual([
      expect.objectContaining({ _id: 'ii_1', title: 'Late checkout' }),
    ]);
    await expect(world.add([CLEANING], 'request-2')).resolves.toEqual([expect.objectContaining({ title: 'Extra cleaning' })]);
    expect(world.folio.writes.map((item) => item.title)).toEqual(['Late checkout', 'Extra cleaning']);
  });

  it("turns the platform's 400 into a clear validation error, recorded as refused (nothing happened)", async () => {
    const world = await setUp();
    world.folio.nextWrite = 'refuse';
    await expect(world.add([LATE_CHECKOUT], 'request-1')).rejects.toMatchObject({
      code: 'validation_failed',
      detail: expect.stringContaining('Some of the request parameters are invalid'),
    });
    await expect(world.add([LATE_CHECKOUT], 'request-1')).resolves.toHaveLength(1);
    expect(world.folio.writes).toHaveLength(2);
  });

  it('answers a line that landed while Redis was failing, records it when Redis answers, and never sends it again', async () => {
    const world = await setUp();
    world.folio.afterWrite = () => (world.store.down = true);
    const [added] = await world.add([LATE_CHECKOUT], 'request-1');
    expect(added).toMatchObject({ _id: 'ii_1', title: 'Late checkout' });
    world.folio.afterWrite = undefined;
    world.store.down = false;
    expect(world.outbox.pending).toBeGreaterThan(0);
    await world.outbox.flush();
    expect(world.outbox.pending).toBe(0);
    await expect(world.add([LATE_CHECKOUT], 'request-1')).resolves.toEqual([expect.objectContaining({ _id: 'ii_1' })]);
    expect(world.folio.writes).toHaveLength(1);
  });
});
