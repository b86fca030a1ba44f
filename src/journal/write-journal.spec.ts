import { UpstreamError } from '../upstream/upstream-error';
import { journalWorld, quietLogs } from '../../test/utils/unit-kit';
import { DomainError } from '../common/errors/domain-error';
import { ReservationLease } from './reservation-leases';
import { canMove, IntentState, onReservation, Reconciliation, WriteIntent, WriteTarget } from './write-intent';
import { dueMember, intentIdOf } from './write-journal';
import { GuestyClient } from '../upstream/guesty-client';
import { JournaledWrite } from './write-kind';
import { KeyValueStore } from '../redis/key-value-store';

const RESERVATION = 'res-1';
const TARGET: WriteTarget = onReservation(RESERVATION);

interface ScriptedPayload {
  send: () => Promise<string>;
}

/** A write kind whose platform answers from a script, remembering whom it told. */
class ScriptedWrite extends JournaledWrite<ScriptedPayload, { title: string }, string> {
  readonly name = 'invoice-item';
  answers: (Reconciliation<string> | Error)[] = [];
  told: WriteIntent<unknown, string>[] = [];
  reads = 0;
  title = '';

  describe() {
    return { request: { title: this.title }, context: { sessionRef: 'ref-1' } };
  }

  override snapshot(): Promise<string[]> {
    return Promise.resolve(['existing-1']);
  }

  send(_target: WriteTarget, payload: ScriptedPayload): Promise<string> {
    return payload.send();
  }

  find(): Promise<Reconciliation<string>> {
    this.reads += 1;
    const next = this.answers.length > 1 ? this.answers.shift()! : this.answers[0];
    if (next === undefined) return Promise.resolve({ unknown: 'nothing scripted' });
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  }

  override refusedBeforeEffect(error: unknown): boolean {
    return error instanceof DomainError;
  }

  override settledElsewhere(intent: WriteIntent<unknown, string>): Promise<void> {
    this.told.push(intent);
    return Promise.resolve();
  }
}

/** The horizon the unit specs run with: the default, as the service starts. */
const SETTLE_MS = 120_000;

/** The journal's id of the scripted write with this key. */
const id = (key: string) => intentIdOf('invoice-item', key);

function setUp(options: { spacingMs?: number; env?: Record<string, string> } = {}) {
  const reconciler = new ScriptedWrite({} as GuestyClient);
  const { clock, store, keys, outbox, leases, journal, generation } = journalWorld(
    { RESERVATION_WRITE_SPACING_MS: String(options.spacingMs ?? 0), ...options.env },
    { kinds: { 'invoice-item': reconciler } },
  );
  const leaseKey = keys.reservationWrites(RESERVATION).lease;
  /** A writer holding the reservation's lease in the store, as withLease leaves it. */
  const holding = async (owner: string): Promise<ReservationLease> => {
    await store.set(leaseKey, owner);
    return { target: TARGET, owner, held: () => true };
  };
  const lease = { target: TARGET, owner: 'writer-1', held: () => true } satisfies ReservationLease;
  void store.set(leaseKey, lease.owner);
  const sends: string[] = [];
  /** One write with this key under `by`, its send answering `send` (made-KEY by default). */
  const write = (by: ReservationLease, key: string, send: () => Promise<string> = () => Promise.resolve(`made-${key}`)) => {
    reconciler.title = key;
    return journal.perform(by, reconciler, key, {
      send: () => {
        sends.push(key);
        return send();
      },
    });
  };
  const stored = async (key: string) => {
    const raw = await store.get(keys.reservationWrites(RESERVATION).intent(id(key)));
    return raw ? (JSON.parse(raw) as WriteIntent) : null;
  };
  const openPointer = () => store.get(keys.reservationWrites(RESERVATION).openIntent);
  const due = () => store.indexDue(keys.journal().due, Number.MAX_SAFE_INTEGER, 100);
  return { clock, store, keys, outbox, leases, journal, generation, reconciler, lease, holding, sends, write, stored, openPointer, due };
}

const lostAnswer = () => Promise.reject(new Error('socket hang up'));

/** The scripted write's request names its key (see ScriptedWrite.describe). */
function reconcilerTitle(world: ReturnType<typeof setUp>, key: string): void {
  world.reconciler.title = key;
}

/** A payload whose send is recorded and answers made-KEY. */
function sendOf(world: ReturnType<typeof setUp>, key: string): ScriptedPayload {
  return {
    send: () => {
      world.sends.push(key);
      return Promise.resolve(`made-${key}`);
    },
  };
}

/** Counts the world's store calls (each one round trip to Redis) from now on. */
function counting(world: ReturnType<typeof setUp>): string[] {
  const calls: string[] = [];
  const store = world.store as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ['get', 'set', 'batch', 'deleteIfEquals', 'extendIfEquals', 'indexAdd', 'indexRemove', 'ttlMs', 'delete']) {
    const original = store[name].bind(world.store);
    store[name] = (...args: unknown[]) => {
      calls.push(name);
      return original(...args);
    };
  }
  return calls;
}

// The journal logs every unclear write; here that is the point of the test, not news.
beforeAll(quietLogs);

describe('write intents: who may move them', () => {
  const states: IntentState[] = ['prepared', 'sending', 'landed', 'refused', 'unknown', 'not_landed', 'fenced'];

  it.each([
    ['prepared', ['sending', 'fenced']],
    ['sending', ['landed', 'refused', 'unknown', 'not_landed']],
    ['unknown', ['landed', 'not_landed']],
    ['landed', []],
    ['refused', []],
    ['not_landed', []],
    ['fenced', []],
  ] as [IntentState, IntentState[]][])('from %s only to %j', (from, allowed) => {
    expect(states.filter((to) => canMove(from, to))).toEqual(allowed);
  });
});

describe('WriteJournal', () => {
  it('journals the intent before sending and the outcome after; the same id is never sent again', async () => {
    const world = setUp();
    let seenBeforeSend: WriteIntent | null = null;
    const outcome = await world.write(world.lease, 'a', async () => {
      seenBeforeSend = await world.stored('a');
      return 'made-a';
    });
    expect(outcome).toBe('made-a');
    expect(seenBeforeSend).toMatchObject({
      state: 'sending',
      snapshot: ['existing-1'],
      target: TARGET,
      context: { sessionRef: 'ref-1' },
    });
    expect(await world.stored('a')).toMatchObject({ state: 'landed', outcome: 'made-a' });
    expect(await world.openPointer()).toBeNull();
    expect(await world.due()).toEqual([]);
    await expect(world.write(world.lease, 'a')).resolves.toBe('made-a');
    expect(world.sends).toEqual(['a']);
  });

  it('keeps nothing of a write whose request never left (the budget refused it): no intent, pointer or sweep entry', async () => {
    const world = setUp();
    const unsent = new UpstreamError('rate_limited', 'The booking platform is busy.', { operation: 'addInvoiceItem', maybeSent: false });
    await expect(world.write(world.lease, 'u', () => Promise.reject(unsent))).rejects.toBe(unsent);
    expect(await world.stored('u')).toBeNull();
    expect(await world.openPointer()).toBeNull();
    expect(await world.due()).toEqual([]);
    await expect(world.write(world.lease, 'u')).resolves.toBe('made-u');
  });

  it('records a refusal, rethrows it, and lets the same id be sent again (nothing happened)', async () => {
    const world = setUp();
    const declined = new DomainError('card_declined', 'declined');
    await expect(world.write(world.lease, 'b', () => Promise.reject(declined))).rejects.toBe(declined);
    expect(await world.stored('b')).toMatchObject({ state: 'refused' });
    expect(await world.openPointer()).toBeNull();
    await expect(world.write(world.lease, 'b')).resolves.toBe('made-b');
    expect(world.sends).toEqual(['b', 'b']);
  });

  it('reconciles a lost answer at once and answers what landed, without sending again', async () => {
    const world = setUp();
    world.reconciler.answers = [{ unknown: 'not shown yet' }, { landed: 'found-c' }];
    await expect(world.write(world.lease, 'c', lostAnswer)).resolves.toBe('found-c');
    expect(world.sends).toEqual(['c']);
    expect(world.reconciler.reads).toBe(2);
    expect(world.clock.slept).toEqual([250, 1_000]);
    expect(await world.stored('c')).toMatchObject({ state: 'landed', outcome: 'found-c' });
    // Its own writer was answered: nobody else is told.
    expect(world.reconciler.told).toEqual([]);
  });

  it('never calls a write "not landed" before its settle horizon: the platform may carry it out late', async () => {
    const world = setUp();
    world.reconciler.answers = [{ notLanded: 'not there' }];
    const failed = await world.write(world.lease, 'd', lostAnswer).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 'outcome_pending', status: 503, retryAfterSeconds: expect.any(Number) });
    expect(String((failed as DomainError).detail)).not.toMatch(/safe to retry|nothing was changed/i);
    expect(world.reconciler.reads).toBe(3);
    expect(await world.stored('d')).toMatchObject({ state: 'unknown' });
    // The same request again, a minute later: still not there, still unknown, still not sent again.
    world.clock.time += 60_000;
    await expect(world.write(world.lease, 'd')).rejects.toMatchObject({ code: 'outcome_pending' });
    expect(world.sends).toEqual(['d']);
    // The sweep looks at it again by the time the horizon passes, never minutes after it.
    const sentAt = (await world.stored('d'))!.sentAt;
    for (let look = 0; look < 8; look += 1) {
      const [due] = await world.store.indexDue(world.keys.journal().due, sentAt + SETTLE_MS, 10);
      expect(due).toBe(dueMember(TARGET, id('d')));
      world.clock.time = Math.max(world.clock.time, Math.min(sentAt + SETTLE_MS - 1, world.clock.time + 5_000));
      if (world.clock.time >= sentAt + SETTLE_MS - 1) break;
      await expect(world.journal.reconcileDue(TARGET, id('d'))).resolves.toBe('unknown');
    }
    // Past the horizon, "not there" is believed: not landed, and the same id may be sent again.
    world.clock.time = sentAt + SETTLE_MS;
    await expect(world.write(world.lease, 'd')).resolves.toBe('made-d');
    expect(world.sends).toEqual(['d', 'd']);
  });

  it('answers a write the platform carried out after our timeout as landed whenever it shows, never sending it twice', async () => {
    const world = setUp();
    world.reconciler.answers = [{ notLanded: 'not there yet' }];
    await expect(world.write(world.lease, 'late', lostAnswer)).rejects.toMatchObject({ code: 'outcome_pending' });
    world.clock.time += 9_000;
    world.reconciler.answers = [{ landed: 'found-late' }];
    await expect(world.write(world.lease, 'late')).resolves.toBe('found-late');
    expect(world.sends).toEqual(['late']);
  });

  it('keeps an unclear write open: outcome_pending for it, and no other write on the reservation is sent', async () => {
    const world = setUp();
    world.reconciler.answers = [new Error('the platform does not answer reads')];
    await expect(world.write(world.lease, 'e', lostAnswer)).rejects.toMatchObject({
      code: 'outcome_pending',
      status: 503,
    });
    expect(await world.stored('e')).toMatchObject({ state: 'unknown' });
    expect(await world.openPointer()).toBe(id('e'));
    expect(await world.due()).toEqual([dueMember(TARGET, id('e'))]);

    await expect(world.write(world.lease, 'other')).rejects.toMatchObject({ code: 'outcome_pending' });
    expect(world.sends).toEqual(['e']);

    // Once the platform answers, the open write is settled, its session told, and the next write goes.
    world.reconciler.answers = [{ landed: 'found-e' }];
    await expect(world.write(world.lease, 'other')).resolves.toBe('made-other');
    expect(world.reconciler.told.map((intent) => [intent.id, intent.state])).toEqual([[id('e'), 'landed']]);
    expect(world.sends).toEqual(['e', 'other']);
    // The retry of the unclear request itself is answered from the journal.
    await expect(world.write(world.lease, 'e')).resolves.toBe('found-e');
    expect(world.sends).toEqual(['e', 'other']);
  });

  it('sends nothing when the intent cannot be journaled (Redis down before the write)', async () => {
    const world = setUp();
    world.store.down = true;
    await expect(world.write(world.lease, 'f')).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(world.sends).toEqual([]);
  });

  describe('REDIS_WAIT_REPLICAS: by default (auto) an intent waits for one replica where the primary has any', () => {
    /** A store whose primary had `replicas` when last connected, `acks` of them acknowledging in time. */
    function withReplicas(replicas: number, acks: number, env: Record<string, string> = {}) {
      const world = setUp({ env });
      const waits: [number, number][] = [];
      const store: KeyValueStore = world.store;
      store.replicasSeen = () => Promise.resolve(replicas);
      store.replicated = (wanted: number, timeoutMs: number) => {
        waits.push([wanted, timeoutMs]);
        return Promise.resolve(acks);
      };
      return { world, waits };
    }

    it('no replica seen: the write goes without waiting', async () => {
      const { world, waits } = withReplicas(0, 0);
      await expect(world.write(world.lease, 'alone')).resolves.toBe('made-alone');
      expect(waits).toEqual([]);
    });

    it('replicas seen: the write goes once one replica acknowledged its intent', async () => {
      const { world, waits } = withReplicas(2, 1);
      await expect(world.write(world.lease, 'kept')).resolves.toBe('made-kept');
      expect(waits).toEqual([[1, 500]]);
      expect(world.sends).toEqual(['kept']);
    });

    it('replicas seen and none acknowledges in time: nothing is sent, no intent is left, and the guest may try again', async () => {
      const { world } = withReplicas(1, 0);
      await expect(world.write(world.lease, 'lost')).rejects.toMatchObject({ code: 'store_unavailable', status: 503 });
      expect(world.sends).toEqual([]);
      expect(await world.stored('lost')).toBeNull();
      expect(await world.openPointer()).toBeNull();
    });

    it('off waits for none, replicas or not; a number waits for that many', async () => {
      const off = withReplicas(2, 0, { REDIS_WAIT_REPLICAS: 'off' });
      await expect(off.world.write(off.world.lease, 'unwaited')).resolves.toBe('made-unwaited');
      expect(off.waits).toEqual([]);
      const two = withReplicas(0, 2, { REDIS_WAIT_REPLICAS: '2', REDIS_URL: 'redis://127.0.0.1:6379' });
      await expect(two.world.write(two.world.lease, 'twice')).resolves.toBe('made-twice');
      expect(two.waits).toEqual([[2, 500]]);
    });

    it('replicas that cannot be read: nothing is sent, the answer says try again', async () => {
      const { world } = withReplicas(1, 1);
      world.store.replicasSeen = () => Promise.reject(new Error('Redis is down'));
      await expect(world.write(world.lease, 'unread')).rejects.toMatchObject({ code: 'store_unavailable' });
      expect(world.sends).toEqual([]);
    });
  });

  it('keeps an outcome Redis could not take, answers it, and writes it when Redis is back', async () => {
    const world = setUp();
    const outcome = await world.write(world.lease, 'g', () => {
      world.store.down = true;
      return Promise.resolve('made-g');
    });
    expect(outcome).toBe('made-g');
    expect(world.outbox.pending).toBe(1);
    world.store.down = false;
    expect(await world.stored('g')).toMatchObject({ state: 'sending' });
    await world.outbox.flush();
    expect(world.outbox.pending).toBe(0);
    expect(await world.stored('g')).toMatchObject({ state: 'landed', outcome: 'made-g' });
    expect(await world.openPointer()).toBeNull();
  });

  describe('a writer that died after its fence step (the sweep finds its intent `sending`)', () => {
    /** An intent its writer left; `sent` writes it as intents were written before the fence and typed targets. */
    async function diedAfterJournaling(
      world: ReturnType<typeof setUp>,
      key: string,
      state: IntentState | 'sent' = 'sending',
      sinceSend = SETTLE_MS,
    ) {
      const common = {
        id: id(key),
        kind: 'invoice-item',
        state,
        request: { title: key },
        snapshot: [],
        context: { sessionRef: 'ref-dead' },
        sentAt: world.clock.now(),
        updatedAt: world.clock.now(),
      };
      const intent = state === 'sent' ? { ...common, reservationId: RESERVATION } : { ...common, target: TARGET };
      await world.store.set(world.keys.reservationWrites(RESERVATION).intent(id(key)), JSON.stringify(intent));
      await world.store.set(world.keys.reservationWrites(RESERVATION).openIntent, id(key));
      await world.store.indexAdd(world.keys.journal().due, dueMember(TARGET, id(key)), world.clock.now());
      world.clock.time += sinceSend;
    }

    it('died while sending, the platform slower than anyone: unknown until the horizon, whoever looks', async () => {
      const world = setUp();
      await diedAfterJournaling(world, 'slow', 'sending', 14_000);
      world.reconciler.answers = [{ notLanded: 'not there' }];
      await expect(world.journal.reconcileDue(TARGET, id('slow'))).resolves.toBe('unknown');
      await expect(world.journal.settleOpen(world.lease)).resolves.toMatchObject({ id: id('slow'), state: 'unknown' });
      expect(world.reconciler.told).toEqual([]);
      world.clock.time += SETTLE_MS;
      await expect(world.journal.reconcileDue(TARGET, id('slow'))).resolves.toBe('not_landed');
      expect(world.reconciler.told.map((intent) => intent.state)).toEqual(['not_landed']);
    });

    it('an unknown intent rewritten into a Redis that lost its pointer points the reservation at it again', async () => {
      const world = setUp();
      await diedAfterJournaling(world, 'lost-pointer', 'sending', 1_000);
      await world.store.delete(world.keys.reservationWrites(RESERVATION).openIntent);
      world.reconciler.answers = [{ unknown: 'not shown yet' }];
      await expect(world.journal.reconcileDue(TARGET, id('lost-pointer'))).resolves.toBe('unknown');
      await expect(world.openPointer()).resolves.toBe(id('lost-pointer'));
      // A later writer on the reservation sees it: nothing else is sent while it is open.
      await expect(world.write(world.lease, 'next')).rejects.toMatchObject({ code: 'outcome_pending' });
      expect(world.sends).toEqual([]);
    });

    it('an intent written before the fence existed (`sent`, named by its reservation id) is read as `sending` on its reservation', async () => {
      const world = setUp();
      await diedAfterJournaling(world, 'old', 'sent', 0);
      expect(await world.journal.load(TARGET, world.reconciler, 'old')).toMatchObject({ state: 'sending', target: TARGET });
      world.reconciler.answers = [{ notLanded: 'not there' }];
      await expect(world.journal.reconcileDue(TARGET, id('old'))).resolves.toBe('unknown');
    });

    it('died before sending, past the horizon: reconciled as not landed, its session told', async () => {
      const world = setUp();
      await diedAfterJournaling(world, 'h');
      world.reconciler.answers = [{ notLanded: 'not there' }];
      await expect(world.journal.reconcileDue(TARGET, id('h'))).resolves.toBe('not_landed');
      expect(world.reconciler.told.map((intent) => intent.state)).toEqual(['not_landed']);
      expect(await world.openPointer()).toBeNull();
      expect(await world.due()).toEqual([]);
    });

    it('died after sending, before recording: reconciled as landed, its session told', async () => {
      const world = setUp();
      await diedAfterJournaling(world, 'i');
      world.reconciler.answers = [{ landed: 'found-i' }];
      await expect(world.journal.reconcileDue(TARGET, id('i'))).resolves.toBe('landed');
      expect(world.reconciler.told.map((intent) => [intent.state, intent.outcome])).toEqual([['landed', 'found-i']]);
    });

    it('still unclear: stays open and due again later, with a longer wait each time', async () => {
      const world = setUp();
      await diedAfterJournaling(world, 'j');
      world.reconciler.answers = [{ unknown: 'cannot tell' }];
      await expect(world.journal.reconcileDue(TARGET, id('j'))).resolves.toBe('unknown');
      expect(await world.store.indexDue(world.keys.journal().due, world.clock.now(), 10)).toEqual([]);
      expect(await world.store.indexDue(world.keys.journal().due, world.clock.now() + 5_000, 10)).toEqual([dueMember(TARGET, id('j'))]);
      await expect(world.journal.reconcileDue(TARGET, id('j'))).resolves.toBe('unknown');
      expect(await world.store.indexDue(world.keys.journal().due, world.clock.now() + 5_000, 10)).toEqual([]);
      expect(await world.stored('j')).toMatchObject({ state: 'unknown', checks: 2 });
    });

    it('died after recording the outcome, before clearing the pointer: nothing is open', async () => {
      const world = setUp();
      await diedAfterJournaling(world, 'k');
      const landed = { ...(await world.stored('k'))!, state: 'landed', outcome: 'made-k' };
      await world.store.set(world.keys.reservationWrites(RESERVATION).intent(id('k')), JSON.stringify(landed));
      await expect(world.journal.settleOpen(world.lease)).resolves.toBeNull();
      await expect(world.write(world.lease, 'next')).resolves.toBe('made-next');
      expect(world.reconciler.reads).toBe(0);
    });
  });

  it('sends nothing once the lease is lost', async () => {
    const world = setUp();
    const lost: ReservationLease = { target: TARGET, owner: 'writer-1', held: () => false };
    await expect(world.write(lost, 'l')).rejects.toMatchObject({ code: 'step_in_progress' });
    expect(world.sends).toEqual([]);
  });

  describe('the fence: a writer frozen past its lease sends nothing', () => {
    it('another writer took the reservation while the first waited: its prepared intent is fenced, its send never leaves', async () => {
      const world = setUp({ spacingMs: 1_500 });
      await world.write(world.lease, 'earlier');
      world.sends.length = 0;
      const background = { ...world.lease, spaced: true as const };
      // Writer A prepares its write, then waits out the spacing; it is frozen there past its lease.
      let taken!: Promise<string>;
      world.clock.sleep = async (ms: number) => {
        world.clock.time += ms + 13_000;
        world.clock.sleep = (more: number) => Promise.resolve(void (world.clock.time += more));
        // Writer B: A's lease lapsed, B holds the reservation now, meets A's prepared intent and fences it at once.
        const b = await world.holding('writer-2');
        taken = (async () => {
          expect(await world.stored('a-card')).toMatchObject({ state: 'prepared' });
          await expect(world.journal.settleOpen(b)).resolves.toBeNull();
          expect(world.reconciler.reads).toBe(0);
          return world.write(b, 'b-card');
        })();
        await taken;
      };
      await expect(world.write(background, 'a-card')).rejects.toMatchObject({ code: 'step_in_progress', status: 409 });
      await expect(taken).resolves.toBe('made-b-card');
      expect(world.sends).toEqual(['b-card']);
      expect(await world.stored('a-card')).toMatchObject({ state: 'fenced' });
      expect(world.reconciler.told.map((intent) => [intent.id, intent.state])).toEqual([[id('a-card'), 'fenced']]);
    });

    it('the lease lapsed before the writer prepared: nothing is written over the reservation, nothing sent', async () => {
      const world = setUp();
      await world.store.deleteIfEquals(world.keys.reservationWrites(RESERVATION).lease, 'writer-1');
      await expect(world.write(world.lease, 'o')).rejects.toMatchObject({ code: 'step_in_progress' });
      expect(world.sends).toEqual([]);
      expect(await world.openPointer()).toBeNull();
    });

    it('the lease lapsed while the writer waited and nobody took it: the fence step still refuses, and the next writer fences the intent', async () => {
      const world = setUp({ spacingMs: 1_500 });
      await world.store.set(world.keys.reservationWrites(RESERVATION).lastWrite, '1', { ttlMs: 1_000 });
      world.clock.sleep = async (ms: number) => {
        world.clock.time += ms;
        await world.store.deleteIfEquals(world.keys.reservationWrites(RESERVATION).lease, 'writer-1');
      };
      await expect(world.write({ ...world.lease, spaced: true }, 'p')).rejects.toMatchObject({ code: 'step_in_progress' });
      expect(world.sends).toEqual([]);
      expect(await world.stored('p')).toMatchObject({ state: 'prepared' });
      // Its own retry, under a new lease: the prepared intent is fenced at once and the write goes.
      world.clock.sleep = (ms: number) => Promise.resolve(void (world.clock.time += ms));
      world.clock.time += 1_500;
      const next = await world.holding('writer-3');
      await expect(world.write(next, 'p')).resolves.toBe('made-p');
      expect(world.sends).toEqual(['p']);
    });

    it('a writer that died after preparing, before its fence step: the sweep fences it without reading the platform', async () => {
      const world = setUp();
      const prepared: WriteIntent = {
        id: id('q'),
        kind: 'invoice-item',
        target: TARGET,
        state: 'prepared',
        request: { title: 'q' },
        snapshot: [],
        context: { sessionRef: 'ref-q' },
        sentAt: world.clock.now(),
        updatedAt: world.clock.now(),
      };
      await world.store.set(world.keys.reservationWrites(RESERVATION).intent(id('q')), JSON.stringify(prepared));
      await world.store.set(world.keys.reservationWrites(RESERVATION).openIntent, id('q'));
      await expect(world.journal.reconcileDue(TARGET, id('q'))).resolves.toBe('fenced');
      expect(world.reconciler.reads).toBe(0);
      expect(await world.openPointer()).toBeNull();
    });

    it('Redis failing at the fence step: nothing is sent, the intent stays prepared for the next writer to fence', async () => {
      const world = setUp();
      world.clock.sleep = () => Promise.resolve(void (world.store.down = true));
      await world.store.set(world.keys.reservationWrites(RESERVATION).lastWrite, '1', { ttlMs: 1_000 });
      await expect(world.write({ ...world.lease, spaced: true }, 'r')).rejects.toMatchObject({ code: 'store_unavailable' });
      world.store.down = false;
      expect(world.sends).toEqual([]);
      expect(await world.stored('r')).toMatchObject({ state: 'prepared' });
    });
  });

  describe('one call (write, holding)', () => {
    it('write: takes the lease, sends once, releases the lease; the same key again answers from the journal', async () => {
      const world = setUp();
      await world.store.deleteIfEquals(world.keys.reservationWrites(RESERVATION).lease, world.lease.owner);
      reconcilerTitle(world, 'one');
      await expect(world.journal.write(TARGET, world.reconciler, 'one', sendOf(world, 'one'))).resolves.toBe('made-one');
      await expect(world.journal.write(TARGET, world.reconciler, 'one', sendOf(world, 'one'))).resolves.toBe('made-one');
      expect(world.sends).toEqual(['one']);
      expect(await world.store.get(world.keys.reservationWrites(RESERVATION).lease)).toBeNull();
    });

    it('holding: the intent read with the lease goes to its send (no second read), and an answer lost before settles nothing twice', async () => {
      const world = setUp();
      reconcilerTitle(world, 'card');
      world.reconciler.answers = [{ landed: 'found-card' }];
      await expect(world.write(world.lease, 'card', lostAnswer)).resolves.toBe('found-card');
      await world.store.deleteIfEquals(world.keys.reservationWrites(RESERVATION).lease, world.lease.owner);
      const peek = [{ kind: world.reconciler, key: 'card' }] as const;
      const calls = counting(world);
      const answer = await world.journal.holding(
        TARGET,
        async (held) => {
          expect(held.wasSent(held.intents[0])).toBe(true);
          return held.send(world.reconciler, 'card', sendOf(world, 'card'));
        },
        { peek },
      );
      expect(answer).toBe('found-card');
      expect(world.sends).toEqual(['card']);
      // The lease with the intent and the pointer, then its release: the send read nothing more.
      expect(calls).toEqual(['batch', 'deleteIfEquals']);
    });

    it("holding: another write's intent left open is settled before this one is sent, and one still open holds it", async () => {
      const world = setUp();
      reconcilerTitle(world, 'first');
      world.reconciler.answers = [{ unknown: 'not yet' }];
      await expect(world.write(world.lease, 'first', lostAnswer)).rejects.toMatchObject({ code: 'outcome_pending' });
      await world.store.deleteIfEquals(world.keys.reservationWrites(RESERVATION).lease, world.lease.owner);
      const press = () =>
        world.journal.holding(
          TARGET,
          async (held) => {
            const open = await held.settleOpen();
            if (open) return `held by ${open.id === id('first') ? 'first' : open.id}`;
            reconcilerTitle(world, 'second');
            return held.send(world.reconciler, 'second', sendOf(world, 'second'));
          },
          { peek: [{ kind: world.reconciler, key: 'second' }] as const },
        );
      await expect(press()).resolves.toBe('held by first');
      world.reconciler.answers = [{ landed: 'made-first' }];
      await expect(press()).resolves.toBe('made-second');
      expect(world.sends).toEqual(['first', 'second']);
    });
  });

  describe('round trips', () => {
    it('a write with nothing open and no spacing left: one step journals it ready to send (the fence step), one records its outcome', async () => {
      const world = setUp({ spacingMs: 1_500 });
      await world.generation.onModuleInit();
      const calls = counting(world);
      reconcilerTitle(world, 'one');
      await expect(
        world.journal.perform(world.lease, world.reconciler, 'one', sendOf(world, 'one'), { earlier: null, openSettled: true }),
      ).resolves.toBe('made-one');
      expect(calls).toEqual(['batch', 'batch']);
      // With the peek left to the journal: one read more, of the intent and the pointer at once.
      calls.length = 0;
      world.clock.time += 1_500;
      await world.write(world.lease, 'two');
      expect(calls).toEqual(['batch', 'batch', 'batch']);
      expect(await world.due()).toEqual([]);
    });

    it('a card submission: its lease with what it reads, its intent, its outcome with the lease released — three round trips', async () => {
      const world = setUp();
      await world.store.deleteIfEquals(world.keys.reservationWrites(RESERVATION).lease, world.lease.owner);
      await world.generation.onModuleInit();
      const calls = counting(world);
      reconcilerTitle(world, 'card');
      let leaseAfterWrite: string | null = 'unread';
      let heldAfterWrite = true;
      const answer = await world.journal.leaseAndPeek(
        TARGET,
        [{ kind: world.reconciler, key: 'card' }],
        undefined,
        async (lease, { intents: [earlier], openIntentId }) => {
          expect([earlier, openIntentId]).toEqual([null, null]);
          const made = await world.journal.perform(lease, world.reconciler, 'card', sendOf(world, 'card'), { earlier, openSettled: true });
          leaseAfterWrite = await world.store.get(world.keys.reservationWrites(RESERVATION).lease);
          heldAfterWrite = lease.held();
          return made;
        },
        { endsWithWrite: true },
      );
      expect(answer).toBe('made-card');
      expect(leaseAfterWrite).toBeNull();
      expect(heldAfterWrite).toBe(false);
      expect(calls).toEqual(['batch', 'batch', 'batch', 'get']);
    });

    it("a card submission's session (another slot) and its card attempt are read and counted in the step that takes the lease", async () => {
      const world = setUp();
      await world.store.deleteIfEquals(world.keys.reservationWrites(RESERVATION).lease, world.lease.owner);
      const sessionKey = world.keys.checkoutSession('ref-1');
      await world.store.set(sessionKey, 'the session as it is now');
      const attempts = world.keys.requestLimit('card-attempts', RESERVATION);
      const count = (member: string) => ({
        windowKeys: [attempts.window],
        pauseKey: attempts.pause,
        windows: [{ limit: 1, windowMs: 60_000, reserve: 0 }],
        member,
      });
      const press = (key: string, member: string) =>
        world.journal.leaseAndPeek(
          TARGET,
          [{ kind: world.reconciler, key }],
          undefined,
          async (_lease, peeked) => ({ ...peeked, read: await peeked.read?.() }),
          {
            alongside: { read: { key: sessionKey, open: (stored: string | null) => Promise.resolve(stored) }, count: count(member) },
          },
        );
      const calls = counting(world);
      const first = await press('a', 'm1');
      expect(calls).toEqual(['batch', 'deleteIfEquals']);
      expect(first).toMatchObject({ read: 'the session as it is now', counted: { granted: true } });
      // Over the limit: the press learns the wait, and still reads what the work needs.
      const second = await press('b', 'm2');
      expect(second.read).toBe('the session as it is now');
      expect(second.counted).toMatchObject({ granted: false });
      expect(second.counted?.retryAfterMs).toBeGreaterThan(59_000);
      // A press whose own intent is there resumes it: nothing is counted.
      reconcilerTitle(world, 'c');
      await world.leases.withLease(TARGET, (lease) =>
        world.journal.perform(lease, world.reconciler, 'c', sendOf(world, 'c'), { earlier: null, openSettled: true }),
      );
      await world.store.releaseSlot([attempts.window], 'm1');
      const resumed = await press('c', 'm3');
      expect(resumed.intents[0]).toMatchObject({ state: 'landed' });
      expect(resumed.counted).toBeNull();
      await expect(press('d', 'm4')).resolves.toMatchObject({ counted: { granted: true } });
    });

    it('storeFirst: the store is judged from the step that takes the lease, before the work does anything, and a hold answers step_in_progress', async () => {
      const world = setUp();
      await world.store.deleteIfEquals(world.keys.reservationWrites(RESERVATION).lease, world.lease.owner);
      await world.generation.onModuleInit();
      const press = () =>
        world.journal.holding(
          TARGET,
          async (held) => {
            await held.storeReady();
            return 'ready';
          },
          { storeFirst: true },
        );
      const calls = counting(world);
      await expect(press()).resolves.toBe('ready');
      expect(calls).toEqual(['batch', 'deleteIfEquals']);
      // Redis emptied under the running replica: writes wait for the horizon, and the press is told how long.
      await world.store.delete(world.keys.journal().generation);
      await expect(press()).rejects.toMatchObject({ code: 'step_in_progress', retryAfterSeconds: SETTLE_MS / 1000 });
      world.clock.time += SETTLE_MS;
      await expect(press()).resolves.toBe('ready');
    });

    it("lets go of a lease taken in a step whose later part failed (a Redis Cluster: the session's master did not answer): the next press takes it at once", async () => {
      const world = setUp();
      await world.store.deleteIfEquals(world.keys.reservationWrites(RESERVATION).lease, world.lease.owner);
      const sessionKey = world.keys.checkoutSession('ref-1');
      const read = async (_lease: ReservationLease, peeked: { read: (() => Promise<string | null>) | null }) =>
        (await peeked.read?.()) ?? null;
      const press = () =>
        world.journal.leaseAndPeek(TARGET, [{ kind: world.reconciler, key: 'a' }], undefined, read, {
          alongside: { read: { key: sessionKey, open: (stored: string | null) => Promise.resolve(stored) } },
        });
      // A Cluster runs the steps of the lease's slot as one script, then the session's as another: the first ran, the second failed.
      const batch = world.store.batch.bind(world.store);
      world.store.batch = (steps) => {
        world.store.batch = batch;
        const otherSlot = steps.findIndex((step) => step.otherSlot);
        const leaseSlot = steps.slice(0, otherSlot);
        return batch(leaseSlot).then(() => Promise.reject(new Error("the session's master did not answer")));
      };
      await expect(press()).rejects.toMatchObject({ code: 'store_unavailable' });
      await world.store.set(sessionKey, 'the session');
      await expect(press()).resolves.toBe('the session');
    });

    it('a refused write keeps a lease that ends with it until its work is done: the work still answers the refusal under it', async () => {
      const world = setUp();
      await world.store.deleteIfEquals(world.keys.reservationWrites(RESERVATION).lease, world.lease.owner);
      const leaseKey = world.keys.reservationWrites(RESERVATION).lease;
      const declined = new DomainError('card_declined', 'declined');
      let leaseAfterRefusal: string | null = null;
      let owner = '';
      await expect(
        world.leases.withLease(
          TARGET,
          async (lease) => {
            owner = lease.owner;
            await world.journal
              .perform(lease, world.reconciler, 'declined', { send: () => Promise.reject(declined) })
              .catch(() => undefined);
            leaseAfterRefusal = await world.store.get(leaseKey);
            return lease.held();
          },
          { endsWithWrite: true },
        ),
      ).resolves.toBe(true);
      expect(leaseAfterRefusal).toBe(owner);
      await expect(world.store.get(leaseKey)).resolves.toBeNull();
    });
  });

  it('spaces a background write from the last write to its reservation by RESERVATION_WRITE_SPACING_MS, across writers', async () => {
    const world = setUp({ spacingMs: 1_500 });
    await world.write(world.lease, 'm');
    expect(world.clock.slept).toEqual([]);
    world.clock.time += 400;
    await world.write({ ...world.lease, spaced: true }, 'n');
    expect(world.clock.slept).toEqual([1_100]);
  });

  it("never makes a guest's write wait on the spacing: sent at once, though it starts the spacing for a background write", async () => {
    const world = setUp({ spacingMs: 1_500 });
    await world.write(world.lease, 'm');
    world.clock.time += 400;
    await world.write(world.lease, 'n');
    expect(world.clock.slept).toEqual([]);
    expect(world.sends).toEqual(['m', 'n']);
    await world.write({ ...world.lease, spaced: true }, 'o');
    expect(world.clock.slept).toEqual([1_500]);
  });
});

describe('ReservationLeases', () => {
  it('has a background work wait out the spacing before it takes the lease: a guest is never held behind that wait', async () => {
    const world = setUp({ spacingMs: 1_500 });
    const writes = world.keys.reservationWrites(RESERVATION);
    await world.store.deleteIfEquals(writes.lease, world.lease.owner);
    await world.store.set(writes.lastWrite, '1', { ttlMs: 1_000 });
    const leaseWhileWaiting: (string | null)[] = [];
    world.clock.sleep = async (ms: number) => {
      world.clock.slept.push(ms);
      leaseWhileWaiting.push(await world.store.get(writes.lease));
      world.clock.time += ms;
    };
    const spaced = await world.leases.withLease(TARGET, (lease) => Promise.resolve(lease.spaced), { spaced: true });
    expect(spaced).toBe(true);
    expect(world.clock.slept).toEqual([1_000]);
    expect(leaseWhileWaiting).toEqual([null]);
  });

  it('lets one writer at a time hold a reservation, and the next in once it is done', async () => {
    const world = setUp();
    await world.store.deleteIfEquals(world.keys.reservationWrites(RESERVATION).lease, world.lease.owner);
    let release!: () => void;
    const first = world.leases.withLease(TARGET, () => new Promise<void>((resolve) => (release = resolve)));
    await expect(world.leases.withLease(TARGET, () => Promise.resolve('second'), { waitMs: 0 })).rejects.toMatchObject({
      code: 'step_in_progress',
      status: 409,
    });
    release();
    await first;
    await expect(world.leases.withLease(TARGET, () => Promise.resolve('second'), { waitMs: 0 })).resolves.toBe('second');
  });
});
