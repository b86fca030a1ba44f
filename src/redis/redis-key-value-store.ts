import Redis, { Cluster, ClusterOptions, RedisOptions } from 'ioredis';
import { RedisClusterAddress, isClusterUrl, parseClusterUrl } from '../config/redis-address';
import { SlotBatches } from './slot-batches';
import {
  BatchAnswer,
  BatchStep,
  KeyValueStore,
  SetOptions,
  ABSENT,
  CountTaken,
  MADE,
  SlotAnswer,
  SlotRequest,
  assertSlotRequest,
  guardHeld,
  isGuardStep,
  isIndexStep,
} from './key-value-store';
import type { BesideClaim } from './key-value-store';

const DELETE_IF_EQUALS = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

const EXTEND_IF_EQUALS = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;

// Slots of a sliding-window log, all windows or none (see TAKE_SLOTS); \`now\` is the script's TIME.
// A block's slots count from now + heldMs and are named member.1 … member.N. Granted: {1, 0, slots
// free, 1 if it made the first log}; {2, 0} where that log is absent and newRecord is 'refuse'.
const TAKE_FROM_LOG = `
local function take(k, a, windows, member, slots, heldMs, newRecord)
  local pause = redis.call('PTTL', KEYS[k + windows])
  if pause > 0 then return {0, pause} end
  local made = 0
  local denied = false
  local wait = 1
  local left = nil
  for i = 0, windows - 1 do
    local limit = tonumber(ARGV[a + i * 3])
    local windowMs = tonumber(ARGV[a + i * 3 + 1])
    local allowed = limit - tonumber(ARGV[a + i * 3 + 2])
    redis.call('ZREMRANGEBYSCORE', KEYS[k + i], '-inf', now - windowMs)
    local count = redis.call('ZCARD', KEYS[k + i])
    if i == 0 and count == 0 then
      if newRecord == 'refuse' then return {2, 0} end
      if newRecord == 'tell' then made = 1 end
    end
    if count + slots > allowed then
      denied = true
      local free = windowMs
      if allowed >= slots then
        local at = count + slots - 1 - allowed
        local blocking = redis.call('ZRANGE', KEYS[k + i], at, at, 'WITHSCORES')
        free = tonumber(blocking[2]) + windowMs - now
      end
      if free > wait then wait = free end
    elseif left == nil or allowed - count - slots < left then
      left = allowed - count - slots
    end
  end
  if denied then return {0, wait} end
  for i = 0, windows - 1 do
    if slots == 1 then
      redis.call('ZADD', KEYS[k + i], now + heldMs, member)
    else
      -- One ZADD for the whole block: a call from Lua costs more than the members it adds.
      local added = {}
      for j = 1, slots do
        added[2 * j - 1] = now + heldMs
        added[2 * j] = member .. '.' .. j
      end
      redis.call('ZADD', KEYS[k + i], unpack(added))
    end
    -- Never shortened: the log may hold slots counted longer than this one (a miss among places).
    local ttl = tonumber(ARGV[a + i * 3 + 1]) + heldMs
    if redis.call('PTTL', KEYS[k + i]) < ttl then redis.call('PEXPIRE', KEYS[k + i], ttl) end
  end
  return {1, 0, left, made}
end`;

// KEYS: each step's keys in turn. ARGV: per step its operation, key count and argument count, then
// its arguments. A takeSlot step's keys: those that skip it, its logs, its pause; its arguments: skip
// count, window count, member, newRecord, then per window as TAKE_SLOTS. It answers 'm' when it made
// its log, 'a' if refused. A failed guard ends it.
const BATCH = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
${TAKE_FROM_LOG}
local answers = {}
local k, a, n = 1, 1, 0
while a <= #ARGV do
  local op, keys, args = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local key, x, y = KEYS[k], ARGV[a + 3], ARGV[a + 4]
  local held = true
  n = n + 1
  if op == 'get' then
    answers[n] = redis.call('GET', key)
  elseif op == 'set' then
    if args > 2 and ARGV[a + 5] == 'NX' then
      answers[n] = redis.call('SET', key, x, 'PX', y, 'NX') and 1 or 0
    else
      redis.call('SET', key, x, 'PX', y)
      answers[n] = 1
    end
  elseif op == 'delete' then
    redis.call('DEL', key)
    answers[n] = 1
  elseif op == 'deleteIfEquals' then
    if redis.call('GET', key) == x then
      redis.call('DEL', key)
      answers[n] = 1
    else
      answers[n] = 0
    end
  elseif op == 'requireEquals' then
    held = redis.call('GET', key) == x
  elseif op == 'requireAbsent' then
    held = redis.call('EXISTS', key) == 0
  elseif op == 'setIfAbsent' then
    held = redis.call('SET', key, x, 'PX', y, 'NX') ~= false
  elseif op == 'replaceIfVersion' then
    local current = redis.call('GET', key)
    local expected = ARGV[a + 5]
    if expected == '' then
      held = not current
    elseif current then
      local ok, record = pcall(cjson.decode, current)
      held = ok and type(record) == 'table' and tostring(record.version) == expected
    else
      held = false
    end
    if held then redis.call('SET', key, x, 'PX', y) end
  elseif op == 'takeSlot' then
    local skip, windows = tonumber(x), tonumber(y)
    for i = 0, skip - 1 do
      if redis.call('EXISTS', KEYS[k + i]) == 1 then held = false end
    end
    if held then
      local slot = take(k + skip, a + 7, windows, ARGV[a + 5], 1, 0, ARGV[a + 6])
      held = slot[1] == 1
      if slot[1] == 2 then
        answers[n] = 'a'
      elseif not held then
        answers[n] = 'w' .. slot[2]
      elseif slot[4] == 1 then
        answers[n] = 'm'
      end
    else
      answers[n] = 0
    end
  elseif op == 'indexAdd' then
    redis.call('ZADD', key, y, x)
    answers[n] = 1
  elseif op == 'indexRemove' or op == 'releaseSlot' then
    redis.call('ZREM', key, x)
    answers[n] = 1
  else
    answers[n] = redis.call('PTTL', key)
  end
  if answers[n] == nil then answers[n] = held and 1 or 0 end
  if not held then return answers end
  k = k + keys
  a = a + 3 + args
end
return answers`;

// KEYS: per request, one sorted-set log per window, then its pause key. ARGV: per request its
// member, window count, slots, heldMs and newRecord, then limit, windowMs, reserve per window. The first
// denied request ends the script; one answer per request tried. Atomic on Redis TIME: replicas never
// both take the last slot.
/** Takes a slot of each request in turn; `stopAtDenied`: none after the first denied (TAKE_SLOTS), else each on its own (TAKE_EACH_SLOT). */
function takeSlotsScript(stopAtDenied: boolean): string {
  return `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
${TAKE_FROM_LOG}
local k, a = 1, 1
local answers = {}
while a <= #ARGV do
  local member, windows = ARGV[a], tonumber(ARGV[a + 1])
  local answer = take(k, a + 5, windows, member, tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), ARGV[a + 4])
  answers[#answers + 1] = answer
  ${stopAtDenied ? 'if answer[1] ~= 1 then return answers end' : ''}
  k = k + windows + 1
  a = a + 5 + windows * 3
end
return answers`;
}

const TAKE_SLOTS = takeSlotsScript(true);
const TAKE_EACH_SLOT = takeSlotsScript(false);

// KEYS: the count. ARGV: wanted, limit, windowMs. Answers {taken, ms until the window ends}; the
// window starts with the first take after the last one ended.
const TAKE_COUNT = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local taken = math.max(0, math.min(tonumber(ARGV[1]), tonumber(ARGV[2]) - used))
if taken > 0 then
  redis.call('INCRBY', KEYS[1], taken)
  if used == 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then left = tonumber(ARGV[3]) end
return {taken, left}`;

const PAUSE_SLOTS = `
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
return 1`;

// KEYS: the claimed key, the key read beside it. ARGV: the claim, its TTL in ms. Answers
// {beside, 1} when claimed, {beside, 0, existing} when the key was taken, {} when beside is absent.
const CLAIM_BESIDE = `
local beside = redis.call('GET', KEYS[2])
if not beside then return {} end
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return {beside, 1} end
return {beside, 0, redis.call('GET', KEYS[1])}`;

/** How often a primary read without replicas is read again before a journal write (replicasSeen). */
const NONE_SEEN_READ_AGAIN_MS = 5_000;
/**
 * How long replicas once seen stay required after readings find none: a primary restarted (or a
 * reconnect) is read before its replica has connected again, and writes sent unreplicated then are
 * what a failover seconds later drops. Readings of none for this long mean the replicas are gone.
 */
const REPLICAS_GONE_AFTER_MS = 10_000;

/**
 * Options for the request path: while Redis is down or hung a command fails within about a
 * second (no offline queue, a command timeout) so callers answer a clean 503 instead of hanging;
 * the client keeps reconnecting in the background so recovery needs no restart.
 */
export const REQUEST_PATH_REDIS_OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  commandTimeout: 1_000,
  connectTimeout: 2_000,
  maxRetriesPerRequest: 1,
  retryStrategy: (attempt: number) => Math.min(100 * 2 ** attempt, 2_000),
  lazyConnect: false,
  disconnectTimeout: 200,
};

/**
 * The same request-path behaviour for a Redis Cluster: no offline queue, a command timeout, and few
 * redirections, so a node that is down fails a command within about a second, not after 16 retries.
 * Reads go to masters too: a replica may lag behind a lock, a token or a limit just written.
 */
export function requestPathClusterOptions(address: RedisClusterAddress): ClusterOptions {
  const { commandTimeout, connectTimeout, maxRetriesPerRequest, disconnectTimeout } = REQUEST_PATH_REDIS_OPTIONS;
  return {
    enableOfflineQueue: false,
    scaleReads: 'master',
    lazyConnect: false,
    clusterRetryStrategy: REQUEST_PATH_REDIS_OPTIONS.retryStrategy,
    maxRedirections: 5,
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    slotsRefreshTimeout: 1_000,
    redisOptions: {
      commandTimeout,
      connectTimeout,
      maxRetriesPerRequest,
      disconnectTimeout,
      username: address.username,
      password: address.password,
      tls: address.tls ? {} : undefined,
    },
    // With TLS the certificate names the host: keep the name instead of connecting to the resolved IP.
    dnsLookup: address.tls ? (host, callback) => callback(null, host) : undefined,
  };
}

/** The store's Lua scripts, by the command name each is defined under on a connection. */
const SCRIPTS = {
  checkoutDeleteIfEquals: DELETE_IF_EQUALS,
  checkoutExtendIfEquals: EXTEND_IF_EQUALS,
  checkoutBatch: BATCH,
  checkoutTakeSlots: TAKE_SLOTS,
  checkoutTakeEachSlot: TAKE_EACH_SLOT,
  checkoutPauseSlots: PAUSE_SLOTS,
  checkoutTakeCount: TAKE_COUNT,
  checkoutClaimBeside: CLAIM_BESIDE,
} as const;

export class RedisKeyValueStore extends KeyValueStore {
  readonly kind = 'redis' as const;

  /** True after a command timed out (Redis hung): commands fail at once until a probe PING answers. */
  private suspended = false;
  private closed = false;

  private readonly slotBatches = new SlotBatches(this);
  /** INFO replication's connected_slaves as read on the latest connection, and when; undefined until read. */
  private replicaReading: { replicas: Promise<number>; readAt: number } | undefined;
  /** The replicas last read on this primary address (more than none), and since when readings have found none. */
  private replicasKnown: { count: number; noneSince?: number } | undefined;

  /** `onCommand` is told of every command sent (a round trip; a script is one): for the metrics. */
  constructor(
    readonly client: Redis | Cluster,
    private readonly onCommand: () => void = () => undefined,
  ) {
    super();
    // Each script is sent once per connection and run by its SHA after (EVALSHA); ioredis sends it
    // again by itself when Redis answers NOSCRIPT (a restart, a failover, SCRIPT FLUSH).
    for (const [name, lua] of Object.entries(SCRIPTS)) client.defineCommand(name, { lua });
    // A reconnect may reach another primary (a failover behind one address): its replicas are read anew.
    if (!(client instanceof Cluster)) client.on('ready', () => this.readReplicas());
  }

  /** Reads the primary's replicas; a failed reading is forgotten, so the next ask reads again. */
  private readReplicas(): { replicas: Promise<number>; readAt: number } {
    const client = this.client as Redis;
    const replicas = this.failFast(() => client.info('replication')).then((info) => {
      const connected = /^connected_slaves:(\d+)/m.exec(info)?.[1];
      if (connected === undefined) throw new Error('Redis INFO replication does not say connected_slaves');
      const count = Number(connected);
      if (count > 0) this.replicasKnown = { count };
      return count;
    });
    const reading = { replicas, readAt: Date.now() };
    this.replicaReading = reading;
    replicas.catch(() => {
      if (this.replicaReading === reading) this.replicaReading = undefined;
    });
    return reading;
  }

  /** One of SCRIPTS by its SHA, its keys first. */
  private run(script: keyof typeof SCRIPTS, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    const command = (this.client as unknown as Record<keyof typeof SCRIPTS, (...words: (string | number)[]) => Promise<unknown>>)[script];
    return this.failFast(() => command.call(this.client, keys.length, ...keys, ...args));
  }

  /**
   * A hung Redis (stopped process, black-holed network) keeps the connection open, so every command
   * waits its full timeout: a request with several commands would wait several seconds. After one
   * timeout the store fails fast instead, and a background PING every 250 ms lifts that once Redis answers.
   */
  private async failFast<T>(command: () => Promise<T>): Promise<T> {
    if (this.suspended) throw new Error('Redis did not answer in time lately; failing fast until it does');
    this.onCommand();
    try {
      return await command();
    } catch (error) {
      // A cluster keeps serving its other masters while one hangs: suspending all of it would not help.
      if (error instanceof Error && /timed out/i.test(error.message) && !(this.client instanceof Cluster)) this.suspend();
      throw error;
    }
  }

  private suspend(): void {
    if (this.suspended) return;
    this.suspended = true;
    const probe = () => {
      this.client.ping().then(
        () => (this.suspended = false),
        () => {
          if (!this.closed) setTimeout(probe, 250).unref();
        },
      );
    };
    probe();
  }

  /** A redis:// or rediss:// URL, or a redis+cluster:// / rediss+cluster:// one (see config/redis-address.ts). */
  static connect(url: string, onCommand?: () => void): RedisKeyValueStore {
    const client = isClusterUrl(url) ? connectCluster(url) : new Redis(url, REQUEST_PATH_REDIS_OPTIONS);
    // Errors surface on the commands that fail and in readiness; without a listener ioredis would
    // print every reconnect failure as an unhandled error event.
    client.on('error', () => undefined);
    return new RedisKeyValueStore(client, onCommand);
  }

  async ping(): Promise<void> {
    await this.failFast(() => this.client.ping());
  }

  async evictionPolicy(): Promise<string> {
    const nodes = this.client instanceof Cluster ? this.client.nodes('master') : [this.client];
    // INFO, not CONFIG GET: managed services often rename or forbid CONFIG; an answer without the field is "unknown".
    const policies = await Promise.all(
      nodes.map(async (node) => /^maxmemory_policy:(\S+)/m.exec(await this.failFast(() => node.info('memory')))?.[1] ?? 'unknown'),
    );
    return policies.find((policy) => policy !== 'noeviction') ?? 'noeviction';
  }

  whenConnected(timeoutMs: number): Promise<boolean> {
    if (this.client.status === 'ready') return Promise.resolve(true);
    return new Promise((resolve) => {
      const onReady = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.client.off('ready', onReady);
        resolve(false);
      }, timeoutMs);
      this.client.once('ready', onReady);
    });
  }

  get(key: string): Promise<string | null> {
    return this.failFast(() => this.client.get(key));
  }

  async set(key: string, value: string, options: SetOptions = {}): Promise<boolean> {
    const args: (string | number)[] = [];
    if (options.ttlMs !== undefined) args.push('PX', Math.max(1, Math.ceil(options.ttlMs)));
    if (options.ifAbsent) args.push('NX');
    const reply = await this.failFast(() => this.client.call('SET', key, value, ...args));
    return reply === 'OK';
  }

  take(key: string): Promise<string | null> {
    return this.failFast(() => this.client.getdel(key));
  }

  async delete(...keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    // A cluster refuses one DEL over keys of several slots (CROSSSLOT): one DEL per key there.
    if (this.client instanceof Cluster) await Promise.all(keys.map((key) => this.failFast(() => this.client.del(key))));
    else await this.failFast(() => this.client.del(...keys));
  }

  async deleteIfEquals(key: string, value: string): Promise<boolean> {
    const deleted = await this.run('checkoutDeleteIfEquals', [key], [value]);
    return deleted === 1;
  }

  async extendIfEquals(key: string, value: string, ttlMs: number): Promise<boolean> {
    const extended = await this.run('checkoutExtendIfEquals', [key], [value, Math.max(1, Math.ceil(ttlMs))]);
    return extended === 1;
  }

  async replaceIfVersion(key: string, expectedVersion: number | null, value: string, ttlMs: number): Promise<boolean> {
    const [replaced] = await this.script([{ op: 'replaceIfVersion', key, expectedVersion, value, ttlMs }]);
    return replaced === true;
  }

  async batch(steps: BatchStep[]): Promise<BatchAnswer[]> {
    if (!(this.client instanceof Cluster)) return this.script(steps);
    // A Cluster runs one script in one slot: the index, in its own slot, is written beside it, and
    // each run of steps marked for another slot (one hash tag a run), or not, is a script of its own, in order.
    const scripted = steps.filter((step) => !isIndexStep(step));
    const runs: BatchStep[][] = [];
    for (const step of scripted) {
      const last = runs[runs.length - 1];
      const sameRun =
        last !== undefined &&
        !!last[0].otherSlot === !!step.otherSlot &&
        (!step.otherSlot || hashTagOf(last[0].key) === hashTagOf(step.key));
      if (sameRun) last.push(step);
      else runs.push([step]);
    }
    const adds = steps.flatMap((step) => (step.op === 'indexAdd' ? [step] : []));
    const added = Promise.all(adds.map((step) => this.indexAdd(step.key, step.member, step.score)));
    const answers: BatchAnswer[] = [];
    let ranToTheEnd = true;
    try {
      for (const run of runs) {
        if (!ranToTheEnd) {
          answers.push(...run.map(() => null));
          continue;
        }
        const ran = await this.script(run);
        answers.push(...ran);
        ranToTheEnd = run.every((step, index) => !isGuardStep(step) || guardHeld(ran[index]));
      }
    } finally {
      await added;
    }
    // Past a guard that stopped the batch, nothing is removed from the index: what it points at may still be open.
    for (const step of steps) if (step.op === 'indexRemove' && ranToTheEnd) await this.indexRemove(step.key, step.member);
    let next = 0;
    return steps.map((step) => {
      if (step.op === 'indexAdd') return true;
      if (step.op === 'indexRemove') return ranToTheEnd ? true : null;
      return answers[next++];
    });
  }

  /** The steps as one script (one round trip), every key declared. */
  private async script(steps: BatchStep[]): Promise<BatchAnswer[]> {
    if (steps.length === 0) return [];
    const keys: string[] = [];
    const args: (string | number)[] = [];
    for (const step of steps) {
      const [stepKeys, stepArgs] = encodedStep(step);
      keys.push(...stepKeys);
      args.push(step.op, stepKeys.length, stepArgs.length, ...stepArgs);
    }
    const reply = (await this.run('checkoutBatch', keys, args)) as (string | number | null)[];
    return steps.map((step, index) => {
      // Past a guard that did not hold, the script returned early: those steps did nothing.
      if (index >= reply.length) return null;
      const answer = reply[index] ?? null;
      if (step.op === 'get') return answer === null ? null : String(answer);
      if (step.op === 'set') return step.ifAbsent ? answer === 1 : true;
      if (step.op === 'delete' || step.op === 'indexAdd' || step.op === 'indexRemove') return true;
      if (step.op === 'ttl') return typeof answer === 'number' && answer >= 0 ? answer : null;
      if (step.op === 'takeSlot' && typeof answer === 'string')
        return answer === 'm' ? MADE : answer === 'a' ? ABSENT : Number(answer.slice(1));
      return answer === 1;
    });
  }

  async indexAdd(key: string, member: string, score: number): Promise<void> {
    await this.failFast(() => this.client.zadd(key, score, member));
  }

  indexDue(key: string, maxScore: number, limit: number): Promise<string[]> {
    return this.failFast(() => this.client.zrangebyscore(key, '-inf', maxScore, 'LIMIT', 0, limit));
  }

  async indexRemove(key: string, member: string): Promise<void> {
    await this.failFast(() => this.client.zrem(key, member));
  }

  async ttlMs(key: string): Promise<number | null> {
    const ttl = await this.failFast(() => this.client.pttl(key));
    return ttl >= 0 ? ttl : null;
  }

  /** Takes made while one is on its way go out together as one takeEachSlot, each decided as alone (SlotBatches). */
  takeSlot(request: SlotRequest): Promise<SlotAnswer> {
    return this.slotBatches.take(request);
  }

  async takeSlots(requests: SlotRequest[]): Promise<SlotAnswer[]> {
    return this.runSlots('checkoutTakeSlots', requests);
  }

  async takeEachSlot(requests: SlotRequest[]): Promise<SlotAnswer[]> {
    if (!(this.client instanceof Cluster)) return this.runSlots('checkoutTakeEachSlot', requests);
    // A Cluster runs one script in one slot: one script per hash tag, the answers put back in order.
    const answers: SlotAnswer[] = new Array<SlotAnswer>(requests.length);
    const byTag = new Map<string, number[]>();
    requests.forEach((request, index) => {
      const tag = hashTagOf(request.windowKeys[0]);
      byTag.set(tag, [...(byTag.get(tag) ?? []), index]);
    });
    await Promise.all(
      [...byTag.values()].map(async (indexes) => {
        const taken = await this.runSlots(
          'checkoutTakeEachSlot',
          indexes.map((index) => requests[index]),
        );
        indexes.forEach((index, at) => (answers[index] = taken[at]));
      }),
    );
    return answers;
  }

  private async runSlots(script: 'checkoutTakeSlots' | 'checkoutTakeEachSlot', requests: SlotRequest[]): Promise<SlotAnswer[]> {
    requests.forEach(assertSlotRequest);
    const keys = requests.flatMap((request) => [...request.windowKeys, request.pauseKey]);
    const args = requests.flatMap((request) => [
      request.member,
      request.windows.length,
      request.slots ?? 1,
      Math.ceil(request.countsFromMs ?? 0),
      request.newRecord ?? '',
      ...request.windows.flatMap((w) => [w.limit, Math.ceil(w.windowMs), w.reserve]),
    ]);
    const reply = await this.run(script, keys, args);
    if (!Array.isArray(reply) || reply.length === 0) throw new Error('takeSlot: unexpected reply from Redis');
    return (reply as unknown[]).map((answer) => {
      if (!Array.isArray(answer) || answer.length < 2) throw new Error('takeSlot: unexpected reply from Redis');
      if (answer[0] === 2) return { granted: false, retryAfterMs: 0, absent: true };
      if (answer[0] !== 1) return { granted: false, retryAfterMs: Number(answer[1]) };
      return { granted: true, retryAfterMs: 0, left: Number(answer[2]), ...(answer[3] === 1 ? { made: true as const } : {}) };
    });
  }

  async takeCount(key: string, wanted: number, limit: number, windowMs: number): Promise<CountTaken> {
    const reply = (await this.run('checkoutTakeCount', [key], [wanted, limit, Math.max(1, Math.ceil(windowMs))])) as number[];
    return { taken: Number(reply[0]), endsInMs: Number(reply[1]) };
  }

  async releaseSlot(windowKeys: string[], member: string | readonly string[]): Promise<void> {
    const members = typeof member === 'string' ? [member] : [...member];
    if (members.length === 0) return;
    // One key at a time: the windows may sit in different Cluster slots.
    for (const key of windowKeys) await this.failFast(() => this.client.zrem(key, ...members));
  }

  async pauseSlots(pauseKey: string, ms: number): Promise<void> {
    await this.run('checkoutPauseSlots', [pauseKey], [Math.max(1, Math.ceil(ms))]);
  }

  async claimBeside(key: string, value: string, ttlMs: number, besideKey: string): Promise<BesideClaim> {
    const reply = (await this.run('checkoutClaimBeside', [key, besideKey], [value, Math.max(1, Math.ceil(ttlMs))])) as (
      string | number | null
    )[];
    if (reply.length === 0) return { beside: null, claimed: false, existing: null };
    const claimed = reply[1] === 1;
    return { beside: String(reply[0]), claimed, existing: claimed || reply[2] == null ? null : String(reply[2]) };
  }

  async replicated(replicas: number, timeoutMs: number): Promise<number> {
    const client = this.client;
    // Configuration refuses REDIS_WAIT_REPLICAS with a Cluster: WAIT answers for one node's connection.
    if (client instanceof Cluster) throw new Error('WAIT is not available on a Redis Cluster');
    return this.failFast(() => client.wait(replicas, timeoutMs));
  }

  async replicasSeen(): Promise<number> {
    // A Cluster's replicas answer for one node's connection each: configuration refuses WAIT there.
    if (this.client instanceof Cluster) return 0;
    const last = this.replicaReading ?? this.readReplicas();
    const replicas = await last.replicas;
    // Replicas seen stay seen until a reconnect reads again: the one cut off may be the one promoted.
    // None seen is read again now and then, as a replica may join (a failed primary back) without a
    // reconnect; one that finds none answers the replicas still required (`required`).
    if (replicas > 0) return replicas;
    if (Date.now() - last.readAt < NONE_SEEN_READ_AGAIN_MS) return this.required(last.readAt);
    const next = this.replicaReading === last ? this.readReplicas() : (this.replicaReading ?? this.readReplicas());
    const found = await next.replicas;
    return found > 0 ? found : this.required(next.readAt);
  }

  /** A reading of none (at `readAt`) after replicas were seen keeps them required until readings have found none for REPLICAS_GONE_AFTER_MS. */
  private required(readAt: number): number {
    const known = this.replicasKnown;
    if (!known) return 0;
    known.noneSince ??= readAt;
    if (readAt - known.noneSince < REPLICAS_GONE_AFTER_MS) return known.count;
    this.replicasKnown = undefined;
    return 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}

/** A step's keys and arguments as the batch script reads them. */
function encodedStep(step: BatchStep): [string[], (string | number)[]] {
  const ttl = (ms: number) => Math.max(1, Math.ceil(ms));
  switch (step.op) {
    case 'set':
      return [[step.key], [step.value, ttl(step.ttlMs), ...(step.ifAbsent ? ['NX'] : [])]];
    case 'setIfAbsent':
      return [[step.key], [step.value, ttl(step.ttlMs)]];
    case 'replaceIfVersion':
      return [[step.key], [step.value, ttl(step.ttlMs), step.expectedVersion === null ? '' : String(step.expectedVersion)]];
    case 'deleteIfEquals':
    case 'requireEquals':
      return [[step.key], [step.value]];
    case 'indexAdd':
      return [[step.key], [step.member, step.score]];
    case 'indexRemove':
    case 'releaseSlot':
      return [[step.key], [step.member]];
    case 'takeSlot': {
      const { request } = step;
      const skip = step.unlessPresent ?? [];
      return [
        [...skip, ...request.windowKeys, request.pauseKey],
        [
          skip.length,
          request.windows.length,
          request.member,
          request.newRecord ?? '',
          ...request.windows.flatMap((window) => [window.limit, Math.ceil(window.windowMs), window.reserve]),
        ],
      ];
    }
    default:
      return [[step.key], []];
  }
}

function connectCluster(url: string): Cluster {
  const { address, problems } = parseClusterUrl(url);
  // Configuration validated the URL already; this guards a direct call with a bad one.
  if (!address) throw new Error(`Redis cluster URL: ${problems.join('; ')}`);
  return new Cluster(address.nodes, requestPathClusterOptions(address));
}

/** What Redis hashes a key by: the text between its first `{` and the next `}`, when not empty; else the key. */
function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}
