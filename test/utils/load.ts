/**
 * A bounded client load for the fault tests: a few workers, each sending one request after the
 * other until stopped, every answer recorded with its timing. Requests go through fetch (its own
 * connection pool, keep-alive, like a real client) with a hard timeout, so a hang is an answer with
 * status 0 and never a stuck test.
 */

import { waitUntil } from './redis-server';

/** One request and what came back. */
export interface Shot {
  /** What the request did (e.g. "createSession"), to group the answers. */
  op: string;
  /** Which instance it went to (e.g. "A", or an index). */
  target: string;
  /** 0 when no HTTP answer came (connection error or the client's timeout). */
  status: number;
  /** The problem's `code` for application/problem+json answers. */
  code?: string;
  contentType: string;
  retryAfter?: string;
  body: unknown;
  /** Date.now() when the request was sent, and how long until the whole answer was read. */
  startedAt: number;
  ms: number;
  /** The network error's code when there was no answer (ECONNREFUSED, UND_ERR_SOCKET, TimeoutError…). */
  error?: string;
}

export interface ShotRequest {
  op: string;
  target: string;
  url: string;
  method?: 'GET' | 'POST';
  json?: unknown;
  headers?: Record<string, string>;
  /** The client gives up after this long (a hang shows as status 0 with error "TimeoutError"). */
  timeoutMs?: number;
}

function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (error instanceof Error) return error.name === 'Error' ? error.message : error.name;
  return String(error);
}

/** Sends one request and reads the whole answer. */
export async function shoot(request: ShotRequest): Promise<Shot> {
  const startedAt = Date.now();
  const started = performance.now();
  const base = { op: request.op, target: request.target, startedAt };
  try {
    const response = await fetch(request.url, {
      method: request.method ?? 'GET',
      headers: { ...(request.json !== undefined ? { 'Content-Type': 'application/json' } : {}), ...request.headers },
      body: request.json !== undefined ? JSON.stringify(request.json) : undefined,
      signal: AbortSignal.timeout(request.timeoutMs ?? 15_000),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      // Not JSON: kept as text.
    }
    const contentType = response.headers.get('content-type') ?? '';
    const code = contentType.startsWith('application/problem+json') ? (body as { code?: string } | null)?.code : undefined;
    return {
      ...base,
      status: response.status,
      code,
      contentType,
      retryAfter: response.headers.get('retry-after') ?? undefined,
      body,
      ms: performance.now() - started,
    };
  } catch (error) {
    return { ...base, status: 0, contentType: '', body: undefined, ms: performance.now() - started, error: errorCode(error) };
  }
}

export interface Load {
  /** Every answer so far, in the order they came. */
  readonly shots: Shot[];
  /** Stops sending, waits for the requests in flight, and answers every shot. */
  stop(): Promise<Shot[]>;
}

/**
 * Starts `concurrency` workers; each calls `next` and sends what it answers, again and again, until
 * stopped. `next` may answer null for "nothing to send now" (e.g. no instance is ready): the worker
 * waits a moment and asks again; such turns are not requests and are not recorded.
 */
export function startLoad(
  concurrency: number,
  next: (worker: number, turn: number) => ShotRequest | null | Promise<ShotRequest | null>,
): Load {
  const shots: Shot[] = [];
  let running = true;
  const workers = Array.from({ length: concurrency }, async (_, worker) => {
    for (let turn = 0; running; turn += 1) {
      const request = await next(worker, turn);
      if (!running) break;
      if (request === null) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        continue;
      }
      shots.push(await shoot(request));
    }
  });
  let stopped: Promise<Shot[]> | undefined;
  return {
    shots,
    // Idempotent, so a test may stop the load where it reads the answers and again in a finally.
    stop: () => {
      running = false;
      stopped ??= Promise.all(workers).then(() => shots);
      return stopped;
    },
  };
}

/** Percentile (0–100) of the answers' durations, rounded to the ms; 0 for no answers. */
export function percentileMs(shots: readonly Shot[], percentile: number): number {
  if (shots.length === 0) return 0;
  const sorted = shots.map((shot) => shot.ms).sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((percentile / 100) * sorted.length) - 1)]);
}

/** "n=…, p50=…, p99=…, max=… ms" of a group of answers, for the figures a test prints. */
export function latencySummary(shots: readonly Shot[]): string {
  return `n=${shots.length} p50=${percentileMs(shots, 50)} p99=${percentileMs(shots, 99)} max=${percentileMs(shots, 100)} ms`;
}

/** Counts of "status code" pairs, e.g. {"200": 12, "503 store_unavailable": 7}, for messages and figures. */
export function statusCounts(shots: readonly Shot[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const shot of shots) {
    const key = shot.status === 0 ? `no answer (${shot.error})` : shot.code ? `${shot.status} ${shot.code}` : String(shot.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Prints a line of observed figures (latencies, counts) beside the test results. */
export function figures(line: string): void {
  process.stdout.write(`[figures] ${line}\n`);
}

/** waitUntil for a condition the test can check without I/O (the load's answers, the sandbox's counters). */
export function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  return waitUntil(() => Promise.resolve(check()), timeoutMs, what);
}
