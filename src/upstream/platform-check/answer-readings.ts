import { scrubText } from '../../common/logging/redaction';
import { DomainError } from '../../common/errors/domain-error';
import { UpstreamError } from '../upstream-error';
import { UpstreamAnswer } from '../upstream-http';

/** What one call brought back: an answer to judge, or why none came. */
export type Heard = { answered: true; status: number; data: unknown } | { answered: false; why: string };

type Wire = Record<string, unknown>;

export function heardOf(answer: UpstreamAnswer): Heard {
  return { answered: true, status: answer.status, data: answer.data };
}

/** Why no usable answer came, in the operator's words: a thrown call names its status, never its token. */
export function silenceOf(error: unknown): Heard {
  if (error instanceof UpstreamError) {
    const status = error.upstreamStatus;
    if (status === 401 || status === 403) return { answered: false, why: `${status}: the platform refused the service's access token` };
    if (status === 429) return { answered: false, why: '429: the account is over its rate limit; run the check again in a minute' };
    return { answered: false, why: status ? `${status}: ${error.message}` : `no answer (${scrubText(error.message)})` };
  }
  if (error instanceof DomainError) return { answered: false, why: `no answer: ${scrubText(error.message)}` };
  return { answered: false, why: `no answer: ${scrubText(error instanceof Error ? error.message : String(error))}` };
}

/** The platform's words of an error answer, scrubbed and cut short (a 400 names the refused field there). */
export function platformWords(data: unknown): string {
  const body = data as { message?: unknown; details?: unknown; error?: unknown } | null;
  const parts = [body?.message, body?.error, body?.details === undefined ? undefined : JSON.stringify(body.details)];
  return scrubText(parts.filter((part) => typeof part === 'string' && part !== '').join(' ')).slice(0, 300);
}

/**
 * No usable answer: no answer at all, a 5xx, a 401/403 (thrown by the client after one re-mint), or a
 * 2xx that is not JSON. `undefined` when there is an answer to judge.
 */
export function unreadable(heard: Heard): string | undefined {
  if (!heard.answered) return heard.why;
  if (heard.status >= 500)
    return `${heard.status}: the platform failed${platformWords(heard.data) ? ` (${platformWords(heard.data)})` : ''}`;
  if (heard.status >= 200 && heard.status < 300 && (heard.data === null || typeof heard.data !== 'object'))
    return `${heard.status} with a body that is not JSON`;
  return undefined;
}

/** A 4xx, in words: its status and what the platform said. */
export function refusal(heard: Heard & { answered: true }): string {
  const words = platformWords(heard.data);
  return `${heard.status}${words ? `: ${words}` : ''}`;
}

/** A list answer: bare, or under one of the wrapper keys the product reads; what else the wrapper carries. */
export function listOf(
  data: unknown,
  wrappers: readonly string[] = ['results'],
): { items: Wire[]; wrapper: string; beside: string[] } | undefined {
  if (Array.isArray(data)) return { items: data as Wire[], wrapper: 'a bare array', beside: [] };
  const body = data as Wire | null;
  const key = wrappers.find((name) => Array.isArray(body?.[name]));
  if (!key || !body) return undefined;
  return { items: body[key] as Wire[], wrapper: `{${key}}`, beside: Object.keys(body).filter((name) => name !== key) };
}

/** The dotted paths of `fields` missing from `item` (`stay.0.unitTypeId` reads the first stay). */
export function missingFields(item: unknown, fields: readonly string[]): string[] {
  return fields.filter((path) => {
    const value = path.split('.').reduce<unknown>((at, key) => (at as Wire | null | undefined)?.[key], item);
    return value === undefined || value === null || value === '';
  });
}

export function keysOf(data: unknown): string {
  const keys = data && typeof data === 'object' ? Object.keys(data).slice(0, 8) : [];
  return keys.length > 0 ? keys.join(', ') : 'none';
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
