import { readTokenizeAnswer } from './tokenize-answer';

/** The tokenization host publishes no refusal body: a refusal is read by its status, whatever its body is. */
describe('readTokenizeAnswer', () => {
  const read = (status: number, data: unknown) => readTokenizeAnswer({ status, data });
  const reason = (status: number, data: unknown) => {
    const answer = read(status, data);
    return answer.kind === 'refused' ? answer.reason : answer.kind;
  };

  it('reads a 400 naming no field as a decline in every shape', () => {
    const shapes = [
      { code: 'CARD_DECLINED', message: 'The card was declined', decline_code: 'generic_decline' },
      { error: { code: 'CARD_DECLINED', message: 'The card was declined' } },
      { message: 'Bad Request' },
      {},
      '',
      'Bad Request',
      null,
      undefined,
      [],
    ];
    expect(shapes.map((data) => reason(400, data))).toEqual(shapes.map(() => 'declined'));
    expect(reason(422, { message: 'Unprocessable' })).toBe('declined');
  });

  it('reads field details at the top of the body or under error, scrubbed', () => {
    const top = read(400, { details: [{ field: 'card.number', message: 'card 4242424242424242 is invalid' }] });
    const nested = read(400, { error: { details: [{ field: 'card.number', message: 'card 4242424242424242 is invalid' }] } });
    for (const answer of [top, nested]) {
      expect(answer).toMatchObject({ kind: 'refused', reason: 'invalid_fields', fields: [{ field: 'card.number' }] });
      expect(JSON.stringify(answer)).not.toContain('4242424242424242');
    }
    expect(reason(400, { details: [] })).toBe('declined');
  });

  it('reads the payment account, a busy or failing host and anything else by status alone', () => {
    expect([reason(402, ''), reason(402, { code: 'ERR_BAD_REQUEST' })]).toEqual(['payment_account', 'payment_account']);
    expect([reason(429, ''), reason(500, 'oops'), reason(503, { message: 'down' })]).toEqual(['unavailable', 'unavailable', 'unavailable']);
    expect([reason(404, ''), reason(403, { message: 'Forbidden' })]).toEqual(['other', 'other']);
    expect(reason(200, { message: 'no id' })).toBe('other');
  });

  it('reads a token with or without threeDS.authURL', () => {
    expect(read(200, { _id: 'tok_1' })).toMatchObject({ kind: 'token', token: { _id: 'tok_1' } });
    expect(read(201, { _id: 'tok_2', threeDS: { authURL: 'https://issuer.example/auth' } })).toMatchObject({
      token: { _id: 'tok_2', threeDS: { authURL: 'https://issuer.example/auth' } },
    });
  });
});
