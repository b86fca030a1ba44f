import { AtRestCipher, SealedValue } from '../redis/at-rest-cipher';

export type SealedToken = SealedValue;

/** The shared access token at rest: whoever can read Redis still cannot call the upstream. */
export class TokenCipher extends AtRestCipher {
  constructor(clientSecret: string) {
    super(clientSecret, 'access-token');
  }
}
