import pino, { DestinationStream, Logger } from 'pino';
import { AppConfig } from '../../config/app-config';
import { redactForLog, scrubText } from './redaction';
import { currentRequestId } from './request-context';
import { currentTrace } from '../telemetry/current-trace';

/**
 * The one structured logger: JSON lines, the request id (and, with tracing on, the trace and span ids)
 * on every line written while serving a request, sensitive fields and card-like digits redacted. Pretty output only when asked
 * (development default).
 */
export function createLogger(config: AppConfig['logging'], destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.level,
    base: { service: 'booking-checkout' },
    messageKey: 'msg',
    errorKey: 'err',
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: () => {
      const requestId = currentRequestId();
      return { ...(requestId ? { requestId } : {}), ...currentTrace() };
    },
    formatters: {
      level: (label) => ({ level: label }),
      log: (object) => redactForLog(object) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((arg) => (typeof arg === 'string' ? scrubText(arg) : arg));
        method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
  };
  if (destination) return pino(options, destination);
  if (config.pretty) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l' } } });
  }
  return pino(options);
}
