import { REDACTED, redactForLog, scrubText } from './redaction';

describe('log redaction', () => {
  it('redacts sensitive fields at any depth, whatever their spelling', () => {
    const out = redactForLog({
      body: { card: { number: '4242424242424242', cvc: '123', exp_month: '12', exp_year: '2030' } },
      headers: { Authorization: 'Bearer abc', 'X-Api-Key': 'k' },
      provider: { apiKey: 'pk_live', accountName: 'Main' },
      form: { client_secret: 's3cr3t', clientSecret: 's3cr3t', access_token: 'tok' },
    });
    expect(out).toEqual({
      body: { card: { number: REDACTED, cvc: REDACTED, exp_month: REDACTED, exp_year: REDACTED } },
      headers: { Authorization: REDACTED, 'X-Api-Key': REDACTED },
      provider: { apiKey: REDACTED, accountName: 'Main' },
      form: { client_secret: REDACTED, clientSecret: REDACTED, access_token: REDACTED },
    });
  });

  it("keeps an operator's data readable: a diagnosis state, a journal state, a number that is not a card's", () => {
    const out = redactForLog({
      state: 'missing',
      diagnosis: { code: 'processor_error' },
      intent: { state: 'unknown' },
      nights: { number: 3 },
      card: { last4: '4242' },
    });
    expect(out).toEqual({
      state: 'missing',
      diagnosis: { code: 'processor_error' },
      intent: { state: 'unknown' },
      nights: { number: 3 },
      card: { last4: '4242' },
    });
  });

  it('blanks the one-time state of a 3-D Secure return URL in free text', () => {
    expect(scrubText('GET /checkout/3ds/cs_x/success?state=AbC_123-xyz&foo=1')).toBe(
      'GET /checkout/3ds/cs_x/success?state=[REDACTED]&foo=1',
    );
  });

  it('blanks card-number-like digit runs, bearer credentials and JWTs in free text', () => {
    expect(scrubText('card 4242 4242 4242 4242 and 5555-5555-5555-4444 failed')).toBe('card [CARD-NUMBER] and [CARD-NUMBER] failed');
    expect(scrubText('header Bearer eyJabc.def.ghi')).toBe('header Bearer [REDACTED]');
    expect(scrubText('tok eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl')).toBe('tok [TOKEN]');
    expect(scrubText('reservation 5f1e2d3c amount 12000')).toBe('reservation 5f1e2d3c amount 12000');
  });

  it('serialises errors with scrubbed message and stack, and survives cycles', () => {
    const error = new Error('charge of 4111111111111111 failed');
    const cyclic: Record<string, unknown> = { error };
    cyclic.self = cyclic;
    const out = redactForLog(cyclic) as { error: { message: string; stack: string }; self: unknown };
    expect(out.error.message).toBe('charge of [CARD-NUMBER] failed');
    expect(out.error.stack).not.toContain('4111111111111111');
    expect(out.self).toBe('[CIRCULAR]');
  });
});
