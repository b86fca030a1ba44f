/** A bearer token as the upstream client sees it; `id` names the generation, never the secret. */
export interface AccessToken {
  id: string;
  value: string;
  expiresAt: number;
}

/**
 * What the upstream client needs from the shared token (src/auth/shared-access-tokens.ts). Kept as
 * an abstract class so the client does not depend on how tokens are shared between replicas.
 */
export abstract class AccessTokens {
  /** A valid token, minting one only when no replica holds one. */
  abstract current(): Promise<AccessToken>;
  /**
   * The upstream refused `token` (401/403). Answers a replacement to retry with once, or null
   * when the refusal cannot be the token's fault (a fresh replacement refused the same way).
   */
  abstract rejected(token: AccessToken): Promise<AccessToken | null>;
}
