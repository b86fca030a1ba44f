import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const SALT = 'booking-checkout/access-token';
const INFO = 'aes-256-gcm at rest in the shared store';

export interface SealedToken {
  iv: string;
  tag: string;
  data: string;
}

/**
 * AES-256-GCM with a key derived (HKDF-SHA256) from the client secret: whoever can read Redis
 * still cannot call the upstream. The key name is bound as associated data, so a sealed token
 * copied under another key does not open.
 */
export class TokenCipher {
  private readonly key: Buffer;

  constructor(clientSecret: string) {
    this.key = Buffer.from(hkdfSync('sha256', clientSecret, SALT, INFO, 32));
  }

  seal(plaintext: string, boundTo: string): SealedToken {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  }

  /** The plaintext, or null when the record was not sealed with this secret for this key. */
  open(sealed: SealedToken, boundTo: string): string | null {
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
