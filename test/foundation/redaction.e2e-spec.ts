import { Logger } from '@nestjs/common';
import { createLogger } from '../../src/common/logging/create-logger';
import { PinoLoggerService } from '../../src/common/logging/pino-logger.service';
import { LogCapture } from '../utils/log-capture';

const CARD = '4242424242424242';
const CVC = '737';
const SECRET = 'client-secret-value-9f8e7d';
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjbGllbnQifQ.c2lnbmF0dXJlLXZhbHVl';

describe('the real logger keeps card data and credentials out of log lines', () => {
  it("redacts a payload logged through pino and through Nest's logger", () => {
    const capture = new LogCapture();
    const pino = createLogger({ level: 'debug', pretty: false }, capture);
    const payload = {
      card: { number: CARD, exp_month: '12', exp_year: '2031', cvc: CVC },
      credentials: { client_secret: SECRET, access_token: TOKEN },
      headers: { authorization: `Bearer ${TOKEN}` },
      provider: { apiKey: 'pk_live_provider_key' },
    };
    pino.info({ payload }, `tokenizing ${CARD} with cvc field`);
    pino.error({ err: new Error(`upstream said: card ${CARD} refused, token ${TOKEN}`) }, 'failed');
    const nest = new PinoLoggerService(pino);
    Logger.overrideLogger(nest);
    new Logger('Checkout').warn({ body: payload }, 'card submission');
    new Logger('Checkout').log(`plain text with ${CARD.replace(/(\d{4})/g, '$1 ')}`);
    Logger.overrideLogger(false);

    expect(capture.lines.length).toBe(4);
    // Each line's own time is the logger's clock, not logged data: its milliseconds may read 737.
    const logged = capture.text.replace(/"time":"[^"]*"/g, '"time":"(the line\'s time)"');
    for (const secret of [CARD, '4242 4242 4242 4242', CVC, SECRET, TOKEN, 'pk_live_provider_key', '2031']) {
      expect(logged).not.toContain(secret);
    }
    expect(capture.text).toContain('[REDACTED]');
    expect(capture.text).toContain('[CARD-NUMBER]');
  });
});
