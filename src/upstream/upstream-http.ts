import { HttpService } from '@nestjs/axios';
import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AxiosError, AxiosRequestConfig } from 'axios';
import { AppConfig } from '../config/app-config';
import { scrubText } from '../common/logging/redaction';
import { inSpan } from '../common/telemetry/in-span';
import { UpstreamError } from './upstream-error';
import { UpstreamMetrics } from './upstream-metrics';

export type UpstreamHost = 'api' | 'auth' | 'pay';

export interface UpstreamCall {
  /** Names the call in logs and metrics (getReservation, tokenizeCard, ...). */
  operation: string;
  host: UpstreamHost;
  method: 'GET' | 'POST' | 'PUT';
  /** Already encoded, without query. */
  path: string;
  /** An array is sent as `name[]=a&name[]=b` (axios' form). */
  query?: Record<string, string | string[]>;
  json?: unknown;
  form?: URLSearchParams;
  headers?: Record<string, string>;
}

export interface UpstreamAnswer {
  status: number;
  data: unknown;
  requestId?: string;
  retryAfterSeconds?: number;
}

// Failures where the connection was never made: even a write may be tried again.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * How the service names itself to the platform: an integration the platform's support can tell from
 * others in its logs (and the sandbox's contract gate from a test's own probes).
 */
export const USER_AGENT = 'booking-checkout-service/1';

function header(headers: unknown, name: string): string | undefined {
  const value = (headers as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;
}

export function retryAfterSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/**
 * The only code that speaks HTTP to the upstream. One attempt per call, bounded by the timeout,
 * no redirects followed; every status comes back to the caller, which decides. Writes one log
 * line per call (path without query, status, ms, upstream request id), never a header or body.
 */
@Injectable()
export class UpstreamHttp {
  private readonly logger = new Logger('Upstream');
  private readonly bases: Record<UpstreamHost, string>;
  private readonly timeoutMs: number;

  constructor(
    private readonly http: HttpService,
    config: ConfigService<AppConfig, true>,
    private readonly metrics: UpstreamMetrics,
  ) {
    const guesty = config.get('guesty', { infer: true });
    this.bases = { api: `${guesty.apiUrl}/v1`, auth: guesty.authUrl, pay: guesty.payUrl };
    this.timeoutMs = guesty.requestTimeoutMs;
  }

  /** One call, as a span named by its operation: the HTTP client span beneath it carries the trace on to the platform. */
  send(call: UpstreamCall): Promise<UpstreamAnswer> {
    return inSpan(call.operation, { 'upstream.operation': call.operation, 'upstream.host': call.host }, () => this.attempt(call));
  }

  private async attempt(call: UpstreamCall): Promise<UpstreamAnswer> {
    const started = performance.now();
    const request: AxiosRequestConfig = {
      method: call.method,
      url: `${this.bases[call.host]}${call.path}`,
      params: call.query,
      data: call.form ? call.form.toString() : call.json,
      headers: {
        Accept: 'application/json',
        'User-Agent': USER_AGENT,
        ...(call.form
          ? { 'Content-Type': 'application/x-www-form-urlencoded' }
          : call.json !== undefined
            ? { 'Content-Type': 'application/json' }
            : {}),
        ...call.headers,
      },
      timeout: this.timeoutMs,
      // axios's timeout is the socket's idle time: an answer trickling in would never end. This bounds the whole call.
      signal: AbortSignal.timeout(this.timeoutMs),
      maxRedirects: 0,
      validateStatus: () => true,
      responseType: 'json',
    };
    try {
      // The promise API of the module's axios instance: the Observable wrapper makes (and throws away)
      // a cancellation error with a stack trace on every call that completes.
      const response = await this.http.axiosRef.request(request);
      const answer: UpstreamAnswer = {
        status: response.status,
        data: response.data,
        requestId: header(response.headers, 'x-request-id'),
        retryAfterSeconds: retryAfterSeconds(header(response.headers, 'retry-after')),
      };
      this.record(call, String(response.status), started, answer.requestId);
      return answer;
    } catch (error) {
      const code = (error as AxiosError).code ?? 'ERROR';
      const timedOut = code === 'ECONNABORTED' || code === 'ETIMEDOUT' || code === 'ERR_CANCELED';
      this.record(call, timedOut ? 'timeout' : code, started);
      throw new UpstreamError(
        'upstream_unavailable',
        timedOut ? 'The booking platform did not answer in time.' : 'The booking platform could not be reached.',
        {
          operation: call.operation,
          maybeSent: !NOT_SENT_CODES.has(code),
          retryAfterSeconds: 1,
          cause: new Error(`${call.operation}: ${code} ${scrubText((error as Error).message)}`),
        },
      );
    }
  }

  private record(call: UpstreamCall, status: string, started: number, upstreamRequestId?: string): void {
    const ms = performance.now() - started;
    this.metrics.calls.inc({ operation: call.operation, status });
    this.metrics.latency.observe({ operation: call.operation }, ms / 1000);
    this.logger.log(
      { operation: call.operation, method: call.method, host: call.host, path: call.path, status, ms: Math.round(ms), upstreamRequestId },
      'upstream call',
    );
  }
}
