/**
 * Whether an address the platform gave for the guest's authentication of a charge may be sent to
 * the guest's browser: the same rule as the tokenization's 3-D Secure authURL — an absolute web
 * address of the issuer only: https (http outside production, for the sandbox), no credentials in
 * it, nothing a browser would run (javascript:, data:).
 */
export function acceptableAuthenticationUrl(url: string, production: boolean): boolean {
  try {
    const parsed = new URL(url);
    if (parsed.username !== '' || parsed.password !== '') return false;
    return parsed.protocol === 'https:' || (!production && parsed.protocol === 'http:');
  } catch {
    return false;
  }
}
