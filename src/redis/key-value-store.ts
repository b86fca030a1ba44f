export interface SetOptions {
  /** Expire the key after this many milliseconds. */
  ttlMs?: number;
  /** Write only when the key does not exist yet (SET NX); `set` then answers whether it wrote. */
  ifAbsent?: boolean;
}

/**
 * One step of a batch (KeyValueStore.batch). `otherSlot`: its keys sit in another hash slot; a
 * Redis Cluster then runs it alone, in its place, only if every guard before it held. Mark only a
 * step that needs the rest's order, not their atomicity; marked neighbours of one hash tag run as
 * one script.
 */
export type BatchStep = (
  | { op: 'get'; key: string }
  /** `ifAbsent`: only when the key does not exist (SET NX), answering whether it wrote; not a guard. */
  | { op: 'set'; key: string; value: string; ttlMs: number; ifAbsent?: true }
  | { op: 'delete'; key: string }
  | { op: 'deleteIfEquals'; key: string; value: string }
  | { op: 'ttl'; key: string }
  /** A guard: when the key does not hold `value`, no later step of the batch runs (a fencing check). */
  | { op: 'requireEquals'; key: string; value: string }
  /** A guard: when the key exists, no later step runs (e.g. a wait that is not over yet). */
  | { op: 'requireAbsent'; key: string }
  /** A guard that writes: SET NX PX (taking a lease); when the key exists, no later step runs. */
  | { op: 'setIfAbsent'; key: string; value: string; ttlMs: number }
  /** A guard that writes: replaceIfVersion (a versioned record's compare-and-set); when it does not write, no later step runs. */
  | { op: 'replaceIfVersion'; key: string; expectedVersion: number | null; value: string; ttlMs: number }
  /**
   * A guard that counts: one slot of a limit (see takeSlot), unless one of `unlessPresent` holds a
   * value (then nothing is taken). Only a granted slot lets later steps run. `key`: the request's
   * first window (its hash slot); every key of the step shares it.
   */
  | { op: 'takeSlot'; key: string; request: SlotRequest; unlessPresent?: readonly string[] }
  /**
   * A sorted index of another hash slot. A Redis Cluster refuses a script over several slots, so
   * there an add is sent beside the batch, even when a guard stops it, and a removal after a batch
   * that ran to its end. Readers of the index must bear an entry that holds for nothing.
   */
  | { op: 'indexAdd'; key: string; member: string; score: number }
  | { op: 'indexRemove'; key: string; member: string }
  /** A slot given back before its time, as releaseSlot does, from the one window log `key`; not a guard. */
  | { op: 'releaseSlot'; key: string; member: string }
) & { otherSlot?: true };

/**
 * Steps a caller hands to a write of the same hash slot, to run in that write's own batch, built from
 * what it writes (a request's stored answer beside a session's outcome); `written` is told once they ran.
 */
export interface StepsBeside<T> {
  steps(written: T): BatchStep[];
  written(): void;
}

/** The same steps, built from what `via` makes of the value written (e.g. a session's view of the session). */
export function stepsVia<T, U>(beside: StepsBeside<T>, via: (written: U) => T): StepsBeside<U> {
  return { steps: (written) => beside.steps(via(written)), written: () => beside.written() };
}

/**
 * A record of another owner read inside someone else's step: its owner names the key and turns what
 * the key held into the record, so the step's builder never handles the owner's key or text.
 */
export interface RecordRead<T> {
  readonly key: string;
  open(stored: string | null): Promise<T>;
}

/** The same read, its record made into what `via` makes of it (e.g. a session admitted to a request). */
export function recordVia<T, U>(read: RecordRead<T>, via: (record: T) => Promise<U>): RecordRead<U> {
  return { key: read.key, open: async (stored) => via(await read.open(stored)) };
}

/**
 * The steps other rooms put in a batch, by what they mean: the step language stays in redis/ (lint
 * refuses a step written out elsewhere, docs/architecture.md rule 2).
 */
export const steps = {
  read: (key: string): BatchStep & { op: 'get' } => ({ op: 'get', key }),
  /** How long until the key expires, in ms (negative: no such key, or no expiry). */
  expiresIn: (key: string): BatchStep & { op: 'ttl' } => ({ op: 'ttl', key }),
  write: (key: string, value: string, ttlMs: number): BatchStep & { op: 'set' } => ({ op: 'set', key, value, ttlMs }),
  /** Written only where the key is missing; answers whether it wrote, and stops nothing after it. */
  writeIfMissing: (key: string, value: string, ttlMs: number): BatchStep & { op: 'set' } => ({
    op: 'set',
    key,
    value,
    ttlMs,
    ifAbsent: true,
  }),
  remove: (key: string): BatchStep & { op: 'delete' } => ({ op: 'delete', key }),
  /** A slot of one window log given back before its time (releaseSlot in a batch); its key sits in another slot. */
  slotBack: (windowKey: string, member: string): BatchStep & { op: 'releaseSlot' } => ({
    op: 'releaseSlot',
    key: windowKey,
    member,
    otherSlot: true,
  }),
  /** `value` at `key` only while `claimKey` (of the same slot) still holds `held`: the first answer says whether it did. */
  writeWhileHeld: (claimKey: string, held: string, key: string, value: string, ttlMs: number): BatchStep[] => [
    { op: 'requireEquals', key: claimKey, value: held },
    { op: 'set', key, value, ttlMs },
  ],
  /** `value` over the key only while it still holds `held` (a claim): the first answer says whether it did. */
  replaceHeld: (key: string, held: string, value: string, ttlMs: number): BatchStep[] => [
    { op: 'requireEquals', key, value: held },
    { op: 'set', key, value, ttlMs },
  ],
};

/** A takeSlot step for `request`, unless one of `unlessPresent` holds a value. */
export function slotStep(request: SlotRequest, unlessPresent: readonly string[] = []): BatchStep & { op: 'takeSlot' } {
  assertSlotRequest(request);
  // The batch script takes one slot counted from now: a block belongs to takeSlot alone.
  if ((request.slots ?? 1) !== 1 || (request.countsFromMs ?? 0) !== 0)
    throw new Error('takeSlot: a batch step takes one slot, counted from now');
  return { op: 'takeSlot', key: request.windowKeys[0], request, ...(unlessPresent.length > 0 ? { unlessPresent } : {}) };
}

/** The SlotAnswer of a takeSlot step's answer (a step not run, or skipped, answers as denied with no wait). */
export function slotAnswerOf(answer: BatchAnswer): SlotAnswer {
  if (answer === true) return { granted: true, retryAfterMs: 0 };
  if (answer === MADE) return { granted: true, retryAfterMs: 0, made: true };
  if (answer === ABSENT) return { granted: false, retryAfterMs: 0, absent: true };
  return { granted: false, retryAfterMs: typeof answer === 'number' ? answer : 0 };
}

/** A takeSlot step's answers for a granted slot that made its log, and for a log absent that it could not make (SlotRequest.newRecord). */
export const MADE = 'made';
export const ABSENT = 'absent';

/** Whether a guard's answer let the batch go on. */
export function guardHeld(answer: BatchAnswer): boolean {
  return answer === true || answer === MADE;
}

/** The guards: when one does not hold, no later step of the batch runs. */
export function isGuardStep(
  step: BatchStep,
): step is Extract<BatchStep, { op: 'requireEquals' | 'requireAbsent' | 'setIfAbsent' | 'replaceIfVersion' | 'takeSlot' }> {
  return ['requireEquals', 'requireAbsent', 'setIfAbsent', 'replaceIfVersion', 'takeSlot'].includes(step.op);
}

/** The steps that name a sorted index: the only ones whose key may sit in another hash slot. */
export function isIndexStep(step: BatchStep): step is Extract<BatchStep, { op: 'indexAdd' | 'indexRemove' }> {
  return step.op === 'indexAdd' || step.op === 'indexRemove';
}

/**
 * One answer per step: get → the value or null; ttl → ms left or null; deleteIfEquals and a set
 * `ifAbsent` → whether it wrote; guards → whether they held; takeSlot → true, false when
 * `unlessPresent` held, the ms to wait, MADE or ABSENT (SlotRequest.newRecord); others → true. After a failed guard, steps answer null
 * and do nothing.
 */
export type BatchAnswer = string | number | boolean | null;

/** One window of a shared budget, as the store counts it. */
export interface SlotWindow {
  limit: number;
  windowMs: number;
  /** Slots this caller must leave free in the window (priority headroom for other callers). */
  reserve: number;
}

export interface SlotRequest {
  /** One sorted-set key per window, plus the pause key; all share one hash tag so a Redis Cluster keeps them in one slot. */
  windowKeys: string[];
  pauseKey: string;
  /** In the order of windowKeys. */
  windows: SlotWindow[];
  /** Unique id of this slot (of a block: its members are `member.1` … `member.N`, see blockMembers). */
  member: string;
  /** Slots taken at once, all or none (default 1): a block a replica hands out itself (ReadsInHand). */
  slots?: number;
  /**
   * The slots count from this long after the take (default 0): a block's, from when its holder stops
   * handing it out; a reservation miss kept among short-lived places, for a whole miss window.
   */
  countsFromMs?: number;
  /**
   * Whether the first window's log may be made when absent: `tell`, made and answered `made`;
   * `refuse`, nothing written and answered `absent` (a record the caller may not make now).
   * Unset: made as any other.
   */
  newRecord?: 'tell' | 'refuse';
}

/** The most slots one block takes: Redis adds a block's members in one ZADD, whose arguments Lua must hold at once. */
export const MOST_BLOCK_SLOTS = 1_000;

/** The members of a block of `slots` taken under `member`, numbered from 1, as the stores write them. */
export function blockMembers(member: string, from: number, slots: number): string[] {
  return Array.from({ length: slots - from + 1 }, (_, index) => `${member}.${from + index}`);
}

/** What `claimBeside` found and did. */
export interface BesideClaim {
  /** The value under the key read beside the claim; null: it is absent, and nothing was written. */
  beside: string | null;
  /** Whether the claim was written (the key was free). */
  claimed: boolean;
  /** The value already under the claimed key when it was not free (null when claimed or not tried). */
  existing: string | null;
}

export interface SlotAnswer {
  granted: boolean;
  /** When denied: ms until a slot may free up (or the pause ends); 0 when granted. */
  retryAfterMs: number;
  /** When granted by takeSlot or takeEachSlot: slots still free in the fullest window. */
  left?: number;
  /** Granted, and the first window's log was made by this take (only when the request's newRecord is `tell`). */
  made?: true;
  /** Denied because the first window's log is absent and the request's newRecord is `refuse`: nothing written. */
  absent?: true;
}

/** What takeCount took of a fixed-window count. */
export interface CountTaken {
  /** How many of those asked were taken: fewer once the window's limit is reached. */
  taken: number;
  /** Milliseconds until the window ends and the count starts again. */
  endsInMs: number;
}

/** A mismatch would make the stores count the wrong windows; a programming error, caught early. */
export function assertSlotRequest(request: SlotRequest): void {
  if (request.windowKeys.length === 0 || request.windowKeys.length !== request.windows.length) {
    throw new Error('takeSlot: one key per window is required');
  }
  const slots = request.slots ?? 1;
  if (!Number.isInteger(slots) || slots < 1 || slots > MOST_BLOCK_SLOTS || !((request.countsFromMs ?? 0) >= 0))
    throw new Error(`takeSlot: a block is 1 to ${MOST_BLOCK_SLOTS} slots, counted from now or later`);
}

/**
 * The shared state every replica sees. Redis in production; an in-process twin for a single
 * development replica. Both pass the same contract tests (key-value-store.contract.ts), so
 * features never know which one they talk to. Every key passed in comes from RedisKeys.
 */
export abstract class KeyValueStore {
  /** "redis" or "memory", for the start-up log and readiness. */
  abstract readonly kind: 'redis' | 'memory';

  abstract ping(): Promise<void>;
  /**
   * The store's memory policy as Redis names it (`maxmemory-policy`; on a Cluster, the first master's
   * that is not `noeviction`): any other lets Redis drop keys the journal needs. The in-process store never evicts.
   */
  abstract evictionPolicy(): Promise<string>;
  /** Resolves true once connected, false when `timeoutMs` passed first (the store keeps trying). */
  abstract whenConnected(timeoutMs: number): Promise<boolean>;
  abstract get(key: string): Promise<string | null>;
  abstract set(key: string, value: string, options?: SetOptions): Promise<boolean>;
  /** Reads and deletes in one step: a one-time value can be consumed once only. */
  abstract take(key: string): Promise<string | null>;
  abstract delete(...keys: string[]): Promise<void>;
  /** Deletes the key only while it still holds `value` (releasing a lock that is still ours). */
  abstract deleteIfEquals(key: string, value: string): Promise<boolean>;
  /** Sets a new expiry only while the key still holds `value` (renewing a lease that is still ours). */
  abstract extendIfEquals(key: string, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Compare-and-set of a versioned record: a JSON object with a numeric `version`. Writes `value`
   * only while the stored record's version is `expectedVersion` (null: only while the key is absent).
   */
  abstract replaceIfVersion(key: string, expectedVersion: number | null, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Runs the steps in order, atomically, in one round trip. A Redis Cluster refuses a script over
   * several hash slots, so every key shares one hash tag except index steps and steps marked
   * `otherSlot` (see BatchStep); on a Cluster such a batch runs as one script per run of same-slot
   * steps, in order.
   */
  abstract batch(steps: BatchStep[]): Promise<BatchAnswer[]>;
  /** Adds or moves `member` of a sorted index to `score`. */
  abstract indexAdd(key: string, member: string, score: number): Promise<void>;
  /** Members of a sorted index whose score is at most `maxScore`, lowest first, at most `limit`. */
  abstract indexDue(key: string, maxScore: number, limit: number): Promise<string[]>;
  abstract indexRemove(key: string, member: string): Promise<void>;
  /** Milliseconds until the key expires; null when it is missing or has no expiry. */
  abstract ttlMs(key: string): Promise<number | null>;
  /**
   * Takes one slot of a shared multi-window budget, all windows or none (sliding-window log).
   * A sliding log, not GCRA: the upstream counts requests in rolling windows, and a GCRA burst can
   * put twice the limit into one rolling window. Time is the store's own clock (Redis TIME), so
   * every replica judges with one clock.
   */
  abstract takeSlot(request: SlotRequest): Promise<SlotAnswer>;
  /**
   * Takes a slot of each request in order, in one atomic step, up to the first one denied: one
   * answer per request tried (those after a denial are not tried and not answered). The keys of
   * every request must share one hash slot.
   */
  abstract takeSlots(requests: SlotRequest[]): Promise<SlotAnswer[]>;
  /**
   * Takes a slot of each request in order, each on its own as takeSlot would (one denied stops
   * none after it): one answer per request. The requests may name keys of several hash slots.
   */
  abstract takeEachSlot(requests: SlotRequest[]): Promise<SlotAnswer[]>;
  /**
   * Takes up to `wanted` of a count that allows `limit` in a fixed window of `windowMs`, which starts
   * at the first take after the last one ended: shared by every replica, on the store's clock.
   */
  abstract takeCount(key: string, wanted: number, limit: number, windowMs: number): Promise<CountTaken>;
  /** Gives slots back before they leave their window (a hold paid or never made, a block's unused reads). */
  abstract releaseSlot(windowKeys: string[], member: string | readonly string[]): Promise<void>;
  /** Pauses the budget for every replica for at least `ms` (keeps the longer of the current and the new pause). */
  abstract pauseSlots(pauseKey: string, ms: number): Promise<void>;
  /**
   * Reads `besideKey` and, only when it exists, writes `value` under `key` unless the key exists
   * (SET NX with an expiry), answering the value found there otherwise: a claim made with what it
   * depends on read in the same atomic step, in one round trip. Both keys must share one hash slot.
   */
  abstract claimBeside(key: string, value: string, ttlMs: number, besideKey: string): Promise<BesideClaim>;
  /**
   * Waits until `replicas` replicas acknowledged every write sent so far (Redis WAIT), at most
   * `timeoutMs`: answers how many did.
   */
  abstract replicated(replicas: number, timeoutMs: number): Promise<number>;
  /**
   * The replicas the Redis primary had when the store last connected (INFO replication, read at
   * start and on every reconnect): 0 for a store that has none to wait for (the in-process store,
   * a Redis Cluster). Rejects while it cannot be read.
   */
  abstract replicasSeen(): Promise<number>;
  abstract close(): Promise<void>;
}
