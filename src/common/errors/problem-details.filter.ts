import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from './domain-error';
import { ERROR_CODES, ErrorCode, errorCodeForStatus, retryAfterOf } from './error-code';
import { PROBLEM_CONTENT_TYPE, problemDetails } from './problem-details';

interface Translated {
  code: ErrorCode;
  detail: string;
  status: number;
  errors?: DomainError['errors'];
  limit?: DomainError['limit'];
  retryAfterSeconds?: number;
  /** Logged at error level with its cause: anything the caller cannot fix. */
  unexpected: boolean;
}

// Fastify's own request errors, answered with fixed texts: its messages may quote the body.
const FASTIFY_ERRORS: Record<string, { code: ErrorCode; detail: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', detail: 'The request body is larger than the 32 KiB the service accepts.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type', detail: 'Send the body as application/json.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'validation_failed', detail: 'The Content-Length header does not match the body.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'malformed_json', detail: 'The body is empty but Content-Type says JSON.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'malformed_json', detail: 'The body is not valid JSON.' },
};

// Fixed texts: Nest passes Fastify's parser messages on, and those may quote the body.
const STATUS_DETAILS: Record<number, string> = {
  400: 'The body could not be read as JSON.',
  404: 'No route has this path.',
  413: 'The request body is larger than the 32 KiB the service accepts.',
  415: 'Send the body as application/json.',
};

interface HealthBody {
  status?: string;
  error?: Record<string, { status?: string; message?: string }>;
}

/** Readiness failures from terminus (or the drain) as not_ready / shutting_down with what is down. */
function healthProblem(exception: HttpException): Translated | null {
  const body = exception.getResponse() as HealthBody;
  if (exception.getStatus() !== 503 || typeof body !== 'object' || body === null) return null;
  if (body.status === 'shutting_down') {
    return { code: 'shutting_down', detail: 'The instance is shutting down.', status: 503, unexpected: false };
  }
  if (body.status !== 'error' || !body.error) return null;
  const down = Object.entries(body.error).map(([name, result]) => `${name}: ${result.message ?? result.status ?? 'down'}`);
  return { code: 'not_ready', detail: `Not ready: ${down.join('; ')}.`, status: 503, unexpected: false };
}

function translate(exception: unknown): Translated {
  if (exception instanceof DomainError) {
    return {
      code: exception.code,
      detail: exception.detail,
      status: exception.status,
      errors: exception.errors,
      limit: exception.limit,
      retryAfterSeconds: retryAfterOf(exception.code, exception.retryAfterSeconds),
      unexpected: exception.status >= 500 && exception.code === 'internal_error',
    };
  }
  if (exception instanceof HttpException) {
    const health = healthProblem(exception);
    if (health) return health;
    const status = exception.getStatus();
    // Our own validation failures are DomainErrors; a bare 400 here is Fastify failing to read the body.
    const code = status === 400 ? 'malformed_json' : errorCodeForStatus(status);
    const detail = STATUS_DETAILS[status] ?? ERROR_CODES[code].title;
    return { code, detail, status, unexpected: status >= 500 };
  }
  const fastifyCode = (exception as { code?: unknown })?.code;
  if (typeof fastifyCode === 'string' && fastifyCode in FASTIFY_ERRORS) {
    const known = FASTIFY_ERRORS[fastifyCode];
    return { ...known, status: ERROR_CODES[known.code].status, unexpected: false };
  }
  if (exception instanceof SyntaxError) {
    return { code: 'malformed_json', detail: 'The body is not valid JSON.', status: 400, unexpected: false };
  }
  const status = (exception as { statusCode?: unknown })?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = errorCodeForStatus(status);
    return { code, detail: ERROR_CODES[code].title, status, unexpected: false };
  }
  return { code: 'internal_error', detail: 'Something went wrong on our side. Try again later.', status: 500, unexpected: true };
}

/** Every error leaves the service as RFC 9457 problem details with a stable code and the request id. */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const problem = translate(exception);
    if (problem.unexpected) {
      this.logger.error({ err: exception, method: request.method, path: request.url.split('?')[0] }, 'unexpected error');
    } else if (problem.status >= 500) {
      this.logger.warn({ code: problem.code, detail: problem.detail, err: (exception as Error)?.cause });
    }
    if (problem.retryAfterSeconds !== undefined)
      void reply.header('Retry-After', String(Math.max(1, Math.ceil(problem.retryAfterSeconds))));
    void reply
      .status(problem.status)
      .header('Content-Type', PROBLEM_CONTENT_TYPE)
      .send(
        problemDetails(problem.code, problem.detail, String(request.id), {
          status: problem.status,
          errors: problem.errors,
          limit: problem.limit,
        }),
      );
  }
}
