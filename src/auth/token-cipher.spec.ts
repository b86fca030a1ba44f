import { TokenCipher } from './token-cipher';

describe('TokenCipher', () => {
  it('opens what it sealed, for the same key name only', () => {
    const cipher = new TokenCipher('client-secret');
    const sealed = cipher.seal('eyJ.token.value', 'checkout:{auth:x}:token');
    expect(JSON.stringify(sealed)).not.toContain('eyJ.token.value');
    expect(cipher.open(sealed, 'checkout:{auth:x}:token')).toBe('eyJ.token.value');
    expect(cipher.open(sealed, 'other:{auth:x}:token')).toBeNull();
  });

  it('cannot be opened with another client secret', () => {
    const sealed = new TokenCipher('secret-a').seal('token', 'k');
    expect(new TokenCipher('secret-b').open(sealed, 'k')).toBeNull();
  });

  it('uses a fresh IV every time', () => {
    const cipher = new TokenCipher('s');
    expect(cipher.seal('t', 'k').iv).not.toBe(cipher.seal('t', 'k').iv);
  });
});
