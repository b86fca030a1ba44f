import pino from 'pino';
import { Writable } from 'node:stream';
import { PinoLoggerService } from './pino-logger.service';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: new PinoLoggerService(pino({ messageKey: 'msg' }, stream)), lines };
}

describe('PinoLoggerService', () => {
  it('writes the fields and the text of a Nest logger call as one line', () => {
    const { logger, lines } = capture();
    logger.warn({ reservationId: 'res-1' }, 'an upstream write has no clear answer', 'WriteJournal');
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, reservationId: 'res-1', context: 'WriteJournal', msg: 'an upstream write has no clear answer' }),
    ]);
  });

  it('never writes a warning or an error without a message', () => {
    const { logger, lines } = capture();
    logger.error({ err: new Error('Redis is down') }, 'Idempotency');
    logger.warn({ reservationId: 'res-1' }, 'Journal');
    expect(lines.map((line) => line.msg)).toEqual(['Redis is down', 'Journal: warn without a description']);
  });
});
