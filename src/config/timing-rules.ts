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

/** What the settle horizon keeps beyond the last moment a write may leave and a writer may hold it. */
export const WRITE_SETTLE_MARGIN_MS = 2_000;

export interface TimingSettings {
  requestTimeoutMs: number;
  callDeadlineMs: number;
  reservationLeaseMs: number;
  writeSettleMs: number;
}

/**
 * The last moment after its fence step that a write may still leave: the upstream client sends a
 * write again after a 429 until 1.5 × UPSTREAM_DEADLINE_MS, each attempt bounded by UPSTREAM_TIMEOUT_MS.
 */
export function writeMayLeaveMs(settings: Pick<TimingSettings, 'requestTimeoutMs' | 'callDeadlineMs'>): number {
  return settings.callDeadlineMs * 1.5 + settings.requestTimeoutMs;
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
    problems.push(
      `RESERVATION_LEASE_MS must be at least ${MIN_RESERVATION_LEASE_MS} ms: a lease renewed every third of it must survive one slow Redis answer`,
    );
  }
  const horizonFloor = writeMayLeaveMs(settings) + settings.reservationLeaseMs + WRITE_SETTLE_MARGIN_MS;
  if (settings.writeSettleMs <= horizonFloor) {
    problems.push(
      `WRITE_SETTLE_SECONDS must exceed ${Math.ceil(horizonFloor / 1000)} s: a write may leave until UPSTREAM_DEADLINE_MS × 1.5 + UPSTREAM_TIMEOUT_MS (${writeMayLeaveMs(settings)} ms) after its send, its writer may hold the lease RESERVATION_LEASE_MS (${settings.reservationLeaseMs} ms) more, plus a margin of ${WRITE_SETTLE_MARGIN_MS} ms; a shorter horizon would call a write that may still land "not landed"`,
    );
  }
  return problems;
}
