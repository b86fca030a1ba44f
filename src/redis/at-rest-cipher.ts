import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const INFO = 'aes-256-gcm at rest in the shared store';

export interface SealedValue {
  iv: string;
  tag: string;
  data: string;
}

/**
 * AES-256-GCM with a key derived (HKDF-SHA256) from the client secret, one key per purpose: what
 * the service must read back but whoever reads Redis must not (the access token, a session's id,
 * a stored answer that names one). The key name is bound as associated data, so a value copied
 * under another key does not open.
 */
export class AtRestCipher {
  private readonly key: Buffer;

  constructor(clientSecret: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', clientSecret, `booking-checkout/${purpose}`, INFO, 32));
  }

  seal(plaintext: string, boundTo: string): SealedValue {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  }

  /**
   * A keyed digest (HMAC-SHA256, 128 bits): tells whether two values are the same without keeping
   * either, and without the secret nobody can try guesses against it (an email, say).
   */
  fingerprint(value: string): string {
    return createHmac('sha256', this.key).update(value).digest('base64url').slice(0, 22);
  }

  /** The plaintext, or null when the value was not sealed with this secret for this purpose and key. */
  open(sealed: SealedValue, boundTo: string): string | null {
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAAD(Buffer.from(boundTo));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

/** The service's at-rest ciphers, one per purpose, all from the one client secret (provided by RedisModule). */
export class AtRestCiphers {
  constructor(private readonly clientSecret: string) {}

  for(purpose: string): AtRestCipher {
    return new AtRestCipher(this.clientSecret, purpose);
  }
}
