import { journalWorld, quietLogs, unitModule } from '../../test/utils/unit-kit';
import { PaymentDiagnosis } from './payment-diagnosis';
import { PaymentDiagnosticsService } from './payment-diagnostics.service';
import { PaymentStatusPolls } from './payment-status-polls';
import { SessionCharges } from './session-charges';

beforeAll(quietLogs);

function diagnosis(amountDue: number): PaymentDiagnosis {
  return { state: 'missing', currency: 'USD', amountPaid: 0, amountDue, diagnosis: { code: 'not_attached', message: '' }, payments: [] };
}

/** The platform's reads of the reservation, each answered when the spec says (`answer`), in order. */
async function setUp({ followed = false } = {}) {
  const world = journalWorld({ PAYMENT_STATUS_REFRESH_SECONDS: '300' });
  const reads: { priority: string; answer: (amountDue: number) => void }[] = [];
  const diagnostics = {
    forReservation: (_id: string, _known: unknown, priority: string) =>
      new Promise<PaymentDiagnosis>((resolve) => reads.push({ priority, answer: (amountDue) => resolve(diagnosis(amountDue)) })),
  };
  const followedSessions: string[] = [];
  const charges = {
    followed: () => Promise.resolve(followed),
    follow: (reservationId: string) => Promise.resolve(void followedSessions.push(reservationId)),
  };
  const module = await unitModule(
    world,
    [PaymentStatusPolls],
    [
      [PaymentDiagnosticsService, diagnostics],
      [SessionCharges, charges],
    ],
  );
  return { world, polls: module.get(PaymentStatusPolls), reads, followedSessions };
}

/** Until the reads the code under test started have reached the fake platform. */
async function readsStarted(reads: unknown[], count: number): Promise<void> {
  while (reads.length < count) await new Promise((resolve) => setImmediate(resolve));
}

describe('PaymentStatusPolls', () => {
  it('serves its answer again within the refresh window, reading the platform once', async () => {
    const { polls, reads } = await setUp();
    const first = polls.status('res-1', {});
    await readsStarted(reads, 1);
    reads[0].answer(300);
    expect((await first).amountDue).toBe(300);
    expect((await polls.status('res-1', {})).amountDue).toBe(300);
    expect(reads).toHaveLength(1);
  });

  it.each([
    [
      'reservation.updated.v2',
      (polls: PaymentStatusPolls) => polls.onReservationChanged({ type: 'reservation.updated.v2', reservationId: 'res-1' }),
    ],
    [
      'guest-folio.updated',
      (polls: PaymentStatusPolls) => polls.onPaymentsChanged({ type: 'guest-folio.updated', reservationId: 'res-1' }),
    ],
  ])('after %s the next read re-reads, and re-reads nothing by itself for a reservation no session follows', async (_event, event) => {
    const { polls, reads } = await setUp();
    const first = polls.status('res-1', {});
    await readsStarted(reads, 1);
    reads[0].answer(300);
    await first;
    await event(polls);
    expect(reads).toHaveLength(1);
    const next = polls.status('res-1', {});
    await readsStarted(reads, 2);
    reads[1].answer(330);
    expect((await next).amountDue).toBe(330);
  });

  it('a read under way when the event comes stores nothing: the next read re-reads, and the session follows the fresh one', async () => {
    const { polls, reads, followedSessions } = await setUp({ followed: true });
    const early = polls.status('res-1', {});
    await readsStarted(reads, 1);
    // The platform changes while that read is on its way; its webhook arrives before the read's answer.
    await polls.onReservationChanged({ type: 'reservation.updated.v2', reservationId: 'res-1' });
    await readsStarted(reads, 2);
    expect(reads[1].priority).toBe('background');
    reads[0].answer(300);
    expect((await early).amountDue).toBe(300);
    reads[1].answer(330);
    await new Promise((resolve) => setImmediate(resolve));
    const after = polls.status('res-1', {});
    expect((await after).amountDue).toBe(330);
    expect(reads).toHaveLength(2);
    expect(followedSessions).toEqual(['res-1', 'res-1']);
  });

  it('ignores a reservation event that names no reservation (a calendar event)', async () => {
    const { polls, reads, world } = await setUp({ followed: true });
    await polls.onReservationChanged({ type: 'calendar.updated.v2', listingId: 'lst-1' });
    await polls.onReservationChanged({ type: 'reservation.updated.v2' });
    expect(reads).toHaveLength(0);
    expect(await world.store.get(world.keys.paymentStatus('res-1').answer)).toBeNull();
  });
});
