import { Injectable } from '@nestjs/common';
import { forSession, Reconciliation, WriteIntent, WriteTarget, reservationOf } from '../journal/write-intent';
import { JournaledWrite } from '../journal/write-kind';
import { JournaledWriteKind } from '../journal/write-kinds';

export type ReservationStatus = 'confirmed' | 'canceled';

export interface StatusChangePayload {
  status: ReservationStatus;
  /** The session the reservation is paid through, if any. */
  sessionId?: string;
}

interface StatusRequest {
  status: ReservationStatus;
}

/** A reservation's status change (confirmed once paid, canceled when orphaned): found by re-reading its status. */
@JournaledWriteKind()
@Injectable()
export class ReservationStatusWrite extends JournaledWrite<StatusChangePayload, StatusRequest, { status: string }> {
  readonly name = 'reservation-status';

  describe(_target: WriteTarget, { status, sessionId }: StatusChangePayload) {
    return { request: { status }, context: forSession(sessionId) };
  }

  async send(target: WriteTarget, { status }: StatusChangePayload): Promise<{ status: string }> {
    return { status: (await this.guesty.setReservationStatus(reservationOf(target), status)).status ?? status };
  }

  async find(intent: WriteIntent<StatusRequest, { status: string }>): Promise<Reconciliation<{ status: string }>> {
    const found = await this.guesty.getReservation(reservationOf(intent.target), 'checkout', []);
    return found?.status === intent.request.status
      ? { landed: { status: found.status } }
      : { notLanded: `the reservation is ${found?.status ?? 'gone'}` };
  }
}
