import type { Random } from './random';
import type { ChaosWorld } from './world';
import { BALANCER_URL } from './world';

/** What one HTTP request got: an answer, or no answer at all (refused, reset, timed out). */
export interface Answer {
  status: number;
  code?: string;
  body: Record<string, unknown>;
  location?: string;
  retryAfterSeconds?: number;
  /** Set when there was no answer: the guest cannot know what happened. */
  error?: string;
}

/** How long a browser waits for an answer before the guest presses again. */
const CLIENT_TIMEOUT_MS = 15_000;

/**
 * The balancer in front of the replicas, as the campaign plays it: each request goes to a replica
 * the operation's own stream picks (frozen or dead ones included, as a balancer learns late).
 */
export class Balancer {
  constructor(private readonly world: ChaosWorld) {}

  /** The origin of the replica this request goes to. */
  origin(random: Random): string {
    return this.world.replicas[random.int(this.world.replicas.length)].url;
  }

  async send(random: Random, method: 'GET' | 'POST', path: string, options: { body?: unknown; key?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    if (options.key) headers['Idempotency-Key'] = options.key;
    return this.fetch(`${this.origin(random)}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  }

  /** A 3-D Secure return URL the service built on the balancer's address, opened on one replica. */
  openReturn(random: Random, returnUrl: string): Promise<Answer> {
    const url = new URL(returnUrl);
    if (url.origin !== new URL(BALANCER_URL).origin) throw new Error(`a return URL off the balancer: ${url.origin}`);
    return this.fetch(`${this.origin(random)}${url.pathname}${url.search}`, { method: 'GET' });
  }

  private async fetch(url: string, init: RequestInit): Promise<Answer> {
    try {
      const response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
      const text = await response.text();
      let body: Record<string, unknown> = {};
      try {
        body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        body = { text };
      }
      const retryAfter = response.headers.get('retry-after');
      return {
        status: response.status,
        code: typeof body.code === 'string' ? body.code : undefined,
        body,
        location: response.headers.get('location') ?? undefined,
        retryAfterSeconds: retryAfter === null ? undefined : Number(retryAfter),
      };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      return { status: 0, body: {}, error: cause ?? (error instanceof Error ? error.name : String(error)) };
    }
  }
}

/** Answers after which the guest presses again with the same key: the outcome is still open. */
const STILL_OPEN = new Set([
  'outcome_pending',
  'idempotency_in_progress',
  'step_in_progress',
  'store_unavailable',
  'rate_limited',
  'not_ready',
  'shutting_down',
  'internal_error',
]);

/** `lost`: the session or quote is gone from the service (only a Redis that lost its data does that here): the guest starts again. */
export type Verdict = 'landed' | 'refused' | 'open' | 'lost';

const GONE = new Set(['session_not_found', 'quote_not_found']);

/** What an answer tells the guest about a write: it landed, it did not (any final refusal), or not yet known. */
export function verdictOf(answer: Answer): Verdict {
  if (answer.status === 0) return 'open';
  if (answer.status >= 200 && answer.status < 300) return 'landed';
  if (answer.code !== undefined && STILL_OPEN.has(answer.code)) return 'open';
  if (answer.status >= 500 && answer.code === undefined) return 'open';
  if (answer.code !== undefined && GONE.has(answer.code)) return 'lost';
  return 'refused';
}

export function describeAnswer(answer: Answer): string {
  if (answer.error) return `no answer (${answer.error})`;
  return `${answer.status}${answer.code ? ` ${answer.code}` : ''}`;
}
