import {
  ABSENT,
  BatchAnswer,
  CountTaken,
  MADE,
  BatchStep,
  KeyValueStore,
  SetOptions,
  SlotAnswer,
  SlotRequest,
  assertSlotRequest,
  blockMembers,
} from './key-value-store';
import type { BesideClaim } from './key-value-store';

interface Entry {
  value: string;
  expiresAt: number | null;
}

/** One grant of a sliding-window log: the twin of a sorted-set member and its score. */
interface Grant {
  member: string;
  at: number;
}

function versionOf(text: string): number | undefined {
  try {
    const record = JSON.parse(text) as { version?: unknown };
    return typeof record.version === 'number' ? record.version : undefined;
  } catch {
    return undefined;
  }
}

/** The in-process store for a single development replica; state dies with the process. */
export class MemoryKeyValueStore extends KeyValueStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, Entry>();
  /** Sliding-window logs of takeSlot, oldest grant first, in the order they were made. */
  private readonly logs = new Map<string, Grant[]>();
  /** When each log's last grant leaves its window (a Redis log's expiry). */
  private readonly logEnds = new Map<string, number>();
  /** Sorted indexes: member → score. */
  private readonly indexes = new Map<string, Map<string, number>>();

  /** `mostLogs`: the sliding-window logs kept at most; past it the oldest made is dropped, so a flood of subjects cannot grow the heap. */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly mostLogs = Infinity,
  ) {
    super();
  }

  /** Whether a slot of the log still counts: the subject it counts is counted here. */
  keepsLog(key: string): boolean {
    return (this.logEnds.get(key) ?? 0) > this.now();
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt !== null && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  evictionPolicy(): Promise<string> {
    return Promise.resolve('noeviction');
  }

  whenConnected(): Promise<boolean> {
    return Promise.resolve(true);
  }

  get(key: string): Promise<string | null> {
    return Promise.resolve(this.live(key)?.value ?? null);
  }

  set(key: string, value: string, options: SetOptions = {}): Promise<boolean> {
    if (options.ifAbsent && this.live(key)) return Promise.resolve(false);
    const expiresAt = options.ttlMs !== undefined ? this.now() + Math.max(1, Math.ceil(options.ttlMs)) : null;
    this.entries.set(key, { value, expiresAt });
    return Promise.resolve(true);
  }

  take(key: string): Promise<string | null> {
    const entry = this.live(key);
    this.entries.delete(key);
    return Promise.resolve(entry?.value ?? null);
  }

  delete(...keys: string[]): Promise<void> {
    for (const key of keys) {
      this.entries.delete(key);
      this.logs.delete(key);
      this.logEnds.delete(key);
      this.indexes.delete(key);
    }
    return Promise.resolve();
  }

  deleteIfEquals(key: string, value: string): Promise<boolean> {
    if (this.live(key)?.value !== value) return Promise.resolve(false);
    this.entries.delete(key);
    return Promise.resolve(true);
  }

  extendIfEquals(key: string, value: string, ttlMs: number): Promise<boolean> {
    const entry = this.live(key);
    if (entry?.value !== value) return Promise.resolve(false);
    entry.expiresAt = this.now() + Math.max(1, Math.ceil(ttlMs));
    return Promise.resolve(true);
  }

  replaceIfVersion(key: string, expectedVersion: number | null, value: string, ttlMs: number): Promise<boolean> {
    return this.batch([{ op: 'replaceIfVersion', key, expectedVersion, value, ttlMs }]).then(([replaced]) => replaced === true);
  }

  /** The same steps in one synchronous turn: just as atomic as the script. */
  batch(steps: BatchStep[]): Promise<BatchAnswer[]> {
    let guarded = true;
    const answers = steps.map((step): BatchAnswer => {
      if (!guarded) return null;
      if (step.op === 'takeSlot') {
        if ((step.unlessPresent ?? []).some((key) => this.live(key) !== undefined)) {
          guarded = false;
          return false;
        }
        const answer = this.slotNow(step.request);
        guarded = answer.granted;
        if (answer.absent) return ABSENT;
        return answer.granted ? (answer.made ? MADE : true) : answer.retryAfterMs;
      }
      const entry = this.live(step.key);
      if (step.op === 'requireEquals') {
        guarded = entry?.value === step.value;
        return guarded;
      }
      if (step.op === 'requireAbsent') {
        guarded = entry === undefined;
        return guarded;
      }
      if (step.op === 'setIfAbsent') {
        guarded = entry === undefined;
        if (guarded) this.entries.set(step.key, { value: step.value, expiresAt: this.now() + Math.max(1, Math.ceil(step.ttlMs)) });
        return guarded;
      }
      if (step.op === 'replaceIfVersion') {
        guarded =
          step.expectedVersion === null ? entry === undefined : entry !== undefined && versionOf(entry.value) === step.expectedVersion;
        if (guarded) this.entries.set(step.key, { value: step.value, expiresAt: this.now() + Math.max(1, Math.ceil(step.ttlMs)) });
        return guarded;
      }
      if (step.op === 'indexAdd') {
        this.addToIndex(step.key, step.member, step.score);
        return true;
      }
      if (step.op === 'indexRemove') {
        this.indexes.get(step.key)?.delete(step.member);
        return true;
      }
      if (step.op === 'releaseSlot') {
        void this.releaseSlot([step.key], step.member);
        return true;
      }
      if (step.op === 'get') return entry?.value ?? null;
      if (step.op === 'set') {
        if (step.ifAbsent && entry !== undefined) return false;
        this.entries.set(step.key, { value: step.value, expiresAt: this.now() + Math.max(1, Math.ceil(step.ttlMs)) });
        return true;
      }
      if (step.op === 'delete') {
        this.entries.delete(step.key);
        return true;
      }
      if (step.op === 'deleteIfEquals') {
        if (entry?.value !== step.value) return false;
        this.entries.delete(step.key);
        return true;
      }
      return entry?.expiresAt != null ? entry.expiresAt - this.now() : null;
    });
    return Promise.resolve(answers);
  }

  indexAdd(key: string, member: string, score: number): Promise<void> {
    this.addToIndex(key, member, score);
    return Promise.resolve();
  }

  private addToIndex(key: string, member: string, score: number): void {
    const index = this.indexes.get(key) ?? new Map<string, number>();
    index.set(member, score);
    this.indexes.set(key, index);
  }

  indexDue(key: string, maxScore: number, limit: number): Promise<string[]> {
    const due = [...(this.indexes.get(key) ?? new Map<string, number>()).entries()]
      .filter(([, score]) => score <= maxScore)
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, limit)
      .map(([member]) => member);
    return Promise.resolve(due);
  }

  indexRemove(key: string, member: string): Promise<void> {
    this.indexes.get(key)?.delete(member);
    return Promise.resolve();
  }

  ttlMs(key: string): Promise<number | null> {
    const entry = this.live(key);
    return Promise.resolve(entry?.expiresAt != null ? entry.expiresAt - this.now() : null);
  }

  takeSlot(request: SlotRequest): Promise<SlotAnswer> {
    return Promise.resolve(this.slotNow(request));
  }

  takeEachSlot(requests: SlotRequest[]): Promise<SlotAnswer[]> {
    return Promise.resolve(requests.map((request) => this.slotNow(request)));
  }

  /** The same steps as the Redis script, in one synchronous turn, so it is just as atomic. */
  takeSlots(requests: SlotRequest[]): Promise<SlotAnswer[]> {
    const answers: SlotAnswer[] = [];
    for (const request of requests) {
      answers.push(this.slotNow(request));
      if (!answers[answers.length - 1].granted) break;
    }
    return Promise.resolve(answers);
  }

  private slotNow(request: SlotRequest): SlotAnswer {
    assertSlotRequest(request);
    const now = this.now();
    const slots = request.slots ?? 1;
    const pause = this.live(request.pauseKey);
    if (pause?.expiresAt != null) return { granted: false, retryAfterMs: pause.expiresAt - now };
    let denied = false;
    let wait = 1;
    let left = Infinity;
    const logs = request.windows.map((window, i) => {
      const key = request.windowKeys[i];
      const log = (this.logs.get(key) ?? []).filter((grant) => grant.at > now - window.windowMs);
      // A log whose slots all left its window is gone, as Redis drops an empty sorted set.
      if (log.length > 0) this.logs.set(key, log);
      else if (this.logs.delete(key)) this.logEnds.delete(key);
      const allowed = window.limit - window.reserve;
      if (log.length + slots > allowed) {
        denied = true;
        const free = allowed >= slots ? log[log.length + slots - 1 - allowed].at + window.windowMs - now : window.windowMs;
        wait = Math.max(wait, free);
      } else {
        left = Math.min(left, allowed - log.length - slots);
      }
      return log;
    });
    const absent = logs[0].length === 0;
    if (absent && request.newRecord === 'refuse') return { granted: false, retryAfterMs: 0, absent: true };
    if (denied) return { granted: false, retryAfterMs: wait };
    // As the script: a block's slots count from when its holder stops handing them out.
    const at = now + Math.ceil(request.countsFromMs ?? 0);
    const members = slots === 1 ? [request.member] : blockMembers(request.member, 1, slots);
    logs.forEach((log, i) => this.keepLog(request.windowKeys[i], log, at + request.windows[i].windowMs));
    for (const log of logs) {
      for (const member of members) {
        const existing = log.findIndex((grant) => grant.member === member);
        if (existing >= 0) log.splice(existing, 1);
        let index = log.length;
        while (index > 0 && log[index - 1].at > at) index -= 1;
        log.splice(index, 0, { member, at });
      }
    }
    return { granted: true, retryAfterMs: 0, left, ...(absent && request.newRecord === 'tell' ? { made: true as const } : {}) };
  }

  /** The log kept until `end` at least, made room for (mostLogs) when new. */
  private keepLog(key: string, log: Grant[], end: number): void {
    if (!this.logs.has(key)) {
      for (const oldest of this.logs.keys()) {
        if (this.logs.size < this.mostLogs) break;
        this.logs.delete(oldest);
        this.logEnds.delete(oldest);
      }
      this.logs.set(key, log);
    }
    this.logEnds.set(key, Math.max(this.logEnds.get(key) ?? 0, end));
  }

  takeCount(key: string, wanted: number, limit: number, windowMs: number): Promise<CountTaken> {
    const current = this.live(key);
    const used = current ? Number(current.value) : 0;
    const taken = Math.max(0, Math.min(wanted, limit - used));
    const expiresAt = current?.expiresAt ?? this.now() + Math.max(1, Math.ceil(windowMs));
    if (taken > 0) this.entries.set(key, { value: String(used + taken), expiresAt });
    return Promise.resolve({ taken, endsInMs: expiresAt - this.now() });
  }

  releaseSlot(windowKeys: string[], member: string | readonly string[]): Promise<void> {
    const members = new Set(typeof member === 'string' ? [member] : member);
    for (const key of windowKeys) {
      const log = this.logs.get(key);
      if (log)
        this.logs.set(
          key,
          log.filter((grant) => !members.has(grant.member)),
        );
    }
    return Promise.resolve();
  }

  pauseSlots(pauseKey: string, ms: number): Promise<void> {
    const current = this.live(pauseKey);
    const left = current === undefined ? -2 : current.expiresAt === null ? -1 : current.expiresAt - this.now();
    if (left < ms) this.entries.set(pauseKey, { value: '1', expiresAt: this.now() + Math.max(1, Math.ceil(ms)) });
    return Promise.resolve();
  }

  claimBeside(key: string, value: string, ttlMs: number, besideKey: string): Promise<BesideClaim> {
    const beside = this.live(besideKey)?.value ?? null;
    if (beside === null) return Promise.resolve({ beside, claimed: false, existing: null });
    const existing = this.live(key)?.value ?? null;
    if (existing === null) this.entries.set(key, { value, expiresAt: this.now() + Math.max(1, Math.ceil(ttlMs)) });
    return Promise.resolve({ beside, claimed: existing === null, existing });
  }

  /** One process's memory has no replicas. */
  replicated(): Promise<number> {
    return Promise.resolve(0);
  }

  replicasSeen(): Promise<number> {
    return Promise.resolve(0);
  }

  close(): Promise<void> {
    this.entries.clear();
    this.logs.clear();
    this.logEnds.clear();
    this.indexes.clear();
    return Promise.resolve();
  }
}
