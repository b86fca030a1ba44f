import { Injectable } from '@nestjs/common';
import { forSession, Reconciliation, WriteIntent, WriteTarget, reservationOf } from '../journal/write-intent';
import { JournaledWrite } from '../journal/write-kind';
import { JournaledWriteKind } from '../journal/write-kinds';
import { holdEndedAs, ReservationStatusRead } from '../upstream/platform-results';
import { UpstreamError } from '../upstream/upstream-error';

export type ReservationStatus = 'confirmed' | 'canceled';

export interface StatusChangePayload {
  status: ReservationStatus;
  /** The session the reservation is paid through, if any. */
  sessionId?: string;
}

interface StatusRequest {
  status: ReservationStatus;
}

/**
 * A confirmation the platform's status read before it made pointless: the reservation is confirmed
 * already, or it ended (`ended`: how the booking shows it). Nothing was sent and no intent was kept.
 */
export class ConfirmationNotSent extends Error {
  constructor(
    readonly platformStatus: ReservationStatusRead,
    readonly ended: 'expired' | 'canceled' | null,
  ) {
    super(`the reservation is ${platformStatus}; its confirmation was not sent`);
    this.name = 'ConfirmationNotSent';
  }
}

/** The status read before a confirmation failed: nothing was sent, and the confirmation stays due. */
export class StatusNotRead extends Error {
  constructor(override readonly cause: unknown) {
    super('the reservation’s status could not be read before its confirmation; nothing was sent');
    this.name = 'StatusNotRead';
  }
}

/** Statuses a confirmation is sent from: the reservation still holds its dates and is not confirmed yet. */
const CONFIRMABLE: ReadonlySet<ReservationStatusRead> = new Set(['reserved', 'awaiting_payment']);

/** A reservation's status change (confirmed once paid, canceled when orphaned): found by re-reading its status. */
@JournaledWriteKind()
@Injectable()
export class ReservationStatusWrite extends JournaledWrite<StatusChangePayload, StatusRequest, { status: string }> {
  readonly name = 'reservation-status';
  /** A status set twice is one change: a lost answer is settled by the status read, and the write sent again at once. */
  override readonly repeatable = true;

  describe(_target: WriteTarget, { status, sessionId }: StatusChangePayload) {
    return { request: { status }, context: forSession(sessionId) };
  }

  /**
   * A confirmation reads the reservation's status first, under the lease, before its intent is
   * kept: the property may have canceled or declined it since the card (docs/product-spec.md §3.1).
   * Only a status that still holds the dates unconfirmed is confirmed; a failed read sends nothing.
   */
  override async snapshot(target: WriteTarget, { status }: StatusChangePayload): Promise<string[]> {
    if (status !== 'confirmed') return [];
    let current: ReservationStatusRead;
    try {
      current = await this.guesty.reservationStatusOf(reservationOf(target), 'checkout');
    } catch (cause) {
      throw new StatusNotRead(cause);
    }
    if (!CONFIRMABLE.has(current)) throw new ConfirmationNotSent(current, current === 'confirmed' ? null : holdEndedAs(current));
    return [];
  }

  /**
   * Nothing published says whether the platform answers setting a status the reservation already has
   * with success or a refusal (docs/upstream.md): a refusal is read as landed when the status read
   * after it shows the status asked for, so a repeat after a late first landing is one change.
   */
  async send(target: WriteTarget, { status }: StatusChangePayload): Promise<{ status: string }> {
    try {
      return { status: (await this.guesty.setReservationStatus(reservationOf(target), status)).status ?? status };
    } catch (error) {
      if (!(error instanceof UpstreamError && this.refusedBeforeEffect(error))) throw error;
      const current = await this.guesty.reservationStatusOf(reservationOf(target), 'checkout').catch(() => null);
      if (current === status) return { status };
      throw error;
    }
  }

  async find(intent: WriteIntent<StatusRequest, { status: string }>): Promise<Reconciliation<{ status: string }>> {
    const found = await this.guesty.getReservation(reservationOf(intent.target), 'checkout', []);
    return found?.status === intent.request.status
      ? { landed: { status: found.status } }
      : { notLanded: `the reservation is ${found?.status ?? 'gone'}` };
  }
}
