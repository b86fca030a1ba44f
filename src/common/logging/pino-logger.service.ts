import { LoggerService } from '@nestjs/common';
import { Logger } from 'pino';

// Nest's start-up chatter (every module and route) belongs at debug, not in production logs.
const CHATTY_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** A warning or an error always says something: the error's own message, else where it came from. */
function fallbackMessage(level: Level, fields: object, context: string | undefined): string | undefined {
  if (level !== 'warn' && level !== 'error' && level !== 'fatal') return undefined;
  const err = (fields as { err?: unknown }).err;
  if (err instanceof Error && err.message) return err.message;
  return `${context ?? 'service'}: ${level} without a description`;
}

/**
 * Nest's logger interface on top of the service's pino logger. Nest calls it as
 * (message, ...params, context); `logger.log({ fields }, 'text')` becomes one line with those fields.
 */
export class PinoLoggerService implements LoggerService {
  constructor(readonly pino: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params[params.length - 1];
    this.write(typeof context === 'string' && CHATTY_CONTEXTS.has(context) ? 'debug' : 'info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    const last = params[params.length - 1];
    const context = params.length > 0 && typeof last === 'string' ? last : undefined;
    const rest = context !== undefined ? params.slice(0, -1) : params;
    const text = rest.find((param): param is string => typeof param === 'string');
    if (message instanceof Error) {
      this.pino[level]({ context, err: message }, text ?? message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.pino[level]({ context, ...message }, text ?? fallbackMessage(level, message, context));
    } else if (level === 'error' && text !== undefined) {
      // Nest's own error(message, stack, context) form.
      this.pino.error({ context, stack: text }, String(message));
    } else {
      this.pino[level]({ context }, String(message));
    }
  }
}
