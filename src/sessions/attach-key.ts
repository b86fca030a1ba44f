/** The journal's key for one attach of a session (by Idempotency-Key or 3-D Secure attempt): a retry finds it. */
export function attachKey(sessionId: string, discriminator: string): string {
  return `${sessionId}:${discriminator}`;
}
