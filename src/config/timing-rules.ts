/**
 * Durations that must outlive the calls they guard (docs/product-spec.md §6.3). The locks and leases live in other
 * rooms; their lengths live here, so that configuration can refuse timeouts that would let one
 * lapse under a running call.
 */

/** The token mint lock: held across one token request, which UPSTREAM_TIMEOUT_MS bounds. */
export const MINT_LOCK_MS = 20_000;
/** Time a mint needs around its request (Redis round trips, the ledger, storing the token). */
const MINT_MARGIN_MS = 5_000;

/** An Idempotency-Key claim: renewed every third of this while its request runs. */
export const IDEMPOTENCY_CLAIM_MS = 15_000;

/** The shortest reservation lease: renewed every third of it, each renewal a Redis call of up to 1 s. */
export const MIN_RESERVATION_LEASE_MS = 500;

export interface TimingSettings {
  requestTimeoutMs: number;
  reservationLeaseMs: number;
}

/** One line per setting that would let a lock lapse under a running call, naming the variables. */
export function timingProblems(settings: TimingSettings): string[] {
  const problems: string[] = [];
  if (settings.requestTimeoutMs + MINT_MARGIN_MS > MINT_LOCK_MS) {
    problems.push(
      `UPSTREAM_TIMEOUT_MS must be at most ${MINT_LOCK_MS - MINT_MARGIN_MS} ms: the token mint lock (${MINT_LOCK_MS} ms) would lapse under a running token request, and a second replica would mint too`,
    );
  }
  if (settings.reservationLeaseMs < MIN_RESERVATION_LEASE_MS) {
    problems.push(`RESERVATION_LEASE_MS must be at least ${MIN_RESERVATION_LEASE_MS} ms: a lease renewed every third of it must survive one slow Redis answer`);
  }
  return problems;
}
