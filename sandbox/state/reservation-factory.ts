import { isTaxType } from '../open-api/invoice-item-rules';
import type { CreateReservationInput } from '../types';
import { roundMoney } from './money';
import type { GuestRecord, ReservationRecord } from './records';
import { newId, type SandboxStore } from './store';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface ReservationSpec {
  id?: string;
  confirmationCode?: string;
  listingId: string;
  guest: { id?: string; email: string; fullName: string };
  currency: string;
  nights: number;
  items: { title: string; amount: number; normalType: string }[];
}

function stayDate(now: number, daysAhead: number): string {
  const day = new Date(now + daysAhead * DAY_MS).toISOString().slice(0, 10);
  return `${day}T15:00:00.000Z`;
}

function ensureGuest(store: SandboxStore, guest: ReservationSpec['guest']): GuestRecord {
  if (guest.id === undefined) return store.guestByEmail(guest.email, guest.fullName);
  const record: GuestRecord = { _id: guest.id, fullName: guest.fullName, email: guest.email };
  store.guests.set(record._id, record);
  return record;
}

export function addReservation(store: SandboxStore, spec: ReservationSpec, now: number): ReservationRecord {
  if (!store.listings.has(spec.listingId)) throw new Error(`Unknown sandbox listing ${spec.listingId}`);
  const guest = ensureGuest(store, spec.guest);
  const id = spec.id ?? newId('res-');
  const reservation: ReservationRecord = {
    _id: id,
    confirmationCode: spec.confirmationCode ?? `SBX-${id.slice(-6).toUpperCase()}`,
    status: 'confirmed',
    listingId: spec.listingId,
    guestId: guest._id,
    checkIn: stayDate(now, 30),
    checkOut: stayDate(now, 30 + spec.nights),
    currency: spec.currency,
    invoiceItems: spec.items.map((item) => ({
      _id: newId('ii_'),
      title: item.title,
      amount: roundMoney(item.amount),
      normalType: item.normalType,
      isTax: isTaxType(item.normalType),
    })),
    payments: [],
  };
  store.reservations.set(reservation._id, reservation);
  return reservation;
}

/** A fresh unpaid reservation whose whole balance is the accommodation fare. */
export function createTestReservation(
  store: SandboxStore,
  input: CreateReservationInput,
  now: number,
): { reservationId: string; guestId: string } {
  if (!Number.isFinite(input.balanceDue) || input.balanceDue < 0) throw new Error('balanceDue must be ≥ 0');
  if (!/^[A-Z]{3}$/.test(input.currency)) throw new Error('currency must be a 3-letter code such as USD');
  const reservation = addReservation(
    store,
    {
      listingId: input.listingId,
      guest: { email: input.guestEmail, fullName: input.guestName ?? input.guestEmail.split('@')[0] },
      currency: input.currency,
      nights: 2,
      items: [{ title: 'Accommodation fare', amount: input.balanceDue, normalType: 'AF' }],
    },
    now,
  );
  return { reservationId: reservation._id, guestId: reservation.guestId };
}
