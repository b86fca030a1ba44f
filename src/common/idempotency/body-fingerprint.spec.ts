import { BodyFingerprint, canonicalJson } from './body-fingerprint';

class CardDto {
  number = '4242424242424242';
  cvc = '737';
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
  });

  it('reads class instances and drops undefined fields as JSON does', () => {
    expect(canonicalJson({ card: new CardDto(), missing: undefined })).toBe('{"card":{"cvc":"737","number":"4242424242424242"}}');
  });

  it('answers null for no body at all', () => {
    expect(canonicalJson(undefined)).toBe('null');
  });
});

describe('BodyFingerprint', () => {
  it('is the same for the same body in any key order, and differs for another body', () => {
    const fingerprint = new BodyFingerprint('client-secret');
    expect(fingerprint.of({ a: 1, b: 2 })).toBe(fingerprint.of({ b: 2, a: 1 }));
    expect(fingerprint.of({ a: 1, b: 2 })).not.toBe(fingerprint.of({ a: 1, b: 3 }));
  });

  it('depends on the secret and never contains the body', () => {
    const body = { card: new CardDto() };
    const fingerprint = new BodyFingerprint('secret-a').of(body);
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint).not.toBe(new BodyFingerprint('secret-b').of(body));
  });
});
