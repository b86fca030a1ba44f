import { onReservation } from '../journal/write-intent';
import { GuestyClient } from '../upstream/guesty-client';
import { ReservationStatusRead } from '../upstream/platform-results';
import { UpstreamError } from '../upstream/upstream-error';
import { ReservationStatusWrite } from './reservation-status.write-kind';

const TARGET = onReservation('res-1');

/** The platform refuses the status change (422); the status read after it answers `shown`. */
function refusedWhileShowing(shown: ReservationStatusRead): ReservationStatusWrite {
  const refusal = new UpstreamError('upstream_error', 'refused', {
    operation: 'setReservationStatus',
    status: 502,
    upstreamStatus: 422,
    maybeSent: true,
  });
  const guesty = {
    setReservationStatus: () => Promise.reject(refusal),
    reservationStatusOf: () => Promise.resolve(shown),
  } as Partial<GuestyClient> as GuestyClient;
  return new ReservationStatusWrite(guesty);
}

/**
 * Unpublished (docs/upstream.md): whether setting a status the reservation already has is accepted
 * or refused. A refusal the status read shows was the status asked for is the write landed.
 */
describe('ReservationStatusWrite: a status set again', () => {
  it('is repeatable: a lost answer is settled by the status read, not the settle horizon', () => {
    expect(refusedWhileShowing('reserved').repeatable).toBe(true);
  });

  it('refused while the reservation already has the status asked for: landed', async () => {
    await expect(refusedWhileShowing('canceled').send(TARGET, { status: 'canceled' })).resolves.toEqual({ status: 'canceled' });
  });

  it('refused while the reservation shows another status: the refusal stands', async () => {
    await expect(refusedWhileShowing('reserved').send(TARGET, { status: 'confirmed' })).rejects.toBeInstanceOf(UpstreamError);
  });
});
