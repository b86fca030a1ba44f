/**
 * Durations that must outlive the calls they guard (docs/product-spec.md §6.3). The locks and leases live in other
 * rooms; their lengths live here, so that configuration can refuse timeouts that would let one
 * lapse under a running call.
 */

/** The token mint lock: held across one token request, which UPSTREAM_TIMEOUT_MS bounds. */
export const MINT_LOCK_MS = 20_000;
/** Time a mint needs around its request (Redis round trips, the ledger, storing the token). */
const MINT_MARGIN_MS = 5_000;

/** The shortest Idempotency-Key claim: renewed every third of it, each renewal a Redis call of up to 1 s. */
export const MIN_IDEMPOTENCY_CLAIM_MS = 3_000;

/** The longest a keyed request waits for another step on its reservation (an extras press behind a confirmation). */
export const LONGEST_LEASE_WAIT_MS = 5_000;
/** The longest a request waits for another replica to share a newly minted access token. */
export const WAIT_FOR_MINTER_MS = 15_000;
/** The journal's re-reads of a write without a clear answer, after these delays (ms). */
export const RECONCILE_DELAYS_MS = [250, 1_000, 2_000];
/**
 * Upstream calls one keyed request makes one after another, at most: a booking's quote read, guest
 * look-up, guest create, provider read and reservation create, or a card's open-intent re-read, hold
 * read, provider read, tokenization, snapshot and attach; plus the journal's three re-reads of a write
 * without a clear answer (the first such write ends the request with `outcome_pending`).
 */
const UPSTREAM_CALLS_PER_REQUEST = 10;
/** Redis steps: each fails within its 1 s command timeout, and the store fails fast after one. */
const STORE_MARGIN_MS = 5_000;

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

/**
 * The longest one keyed request may legitimately work: each upstream call bounded like a write,
 * plus the journal's re-reads, a lease wait, a token wait and Redis steps. Its Idempotency-Key
 * claim is renewed no longer, so stuck work frees the key for the guest's retry, which meets the
 * write journal (docs/write-journal.md, "Idempotency-Key").
 */
export function requestMayRunMs(settings: Pick<TimingSettings, 'requestTimeoutMs' | 'callDeadlineMs'>): number {
  const reReads = RECONCILE_DELAYS_MS.reduce((sum, delay) => sum + delay, 0);
  return UPSTREAM_CALLS_PER_REQUEST * writeMayLeaveMs(settings) + reReads + LONGEST_LEASE_WAIT_MS + WAIT_FOR_MINTER_MS + STORE_MARGIN_MS;
}

/**
 * How long an Idempotency-Key claim blocks its key without being renewed: as long as the
 * reservation's lease (RESERVATION_LEASE_MS), so a replica that dies mid-request frees the guest's
 * key when it frees the reservation, and the retry meets the write journal, which knows what the
 * dead request sent. Never shorter than three renewals that each wait out a slow Redis answer.
 */
export function idempotencyClaimMs(settings: Pick<TimingSettings, 'reservationLeaseMs'>): number {
  return Math.max(settings.reservationLeaseMs, MIN_IDEMPOTENCY_CLAIM_MS);
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
