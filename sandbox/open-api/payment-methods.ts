/** POST/GET /v1/guests/:guestId/payment-methods: turning a card token into a guest's payment method. */
import { jsonAnswer, type SandboxAnswer } from '../http/answer';
import { parseJsonObject } from '../http/body';
import { invalidParameters, notFound, UpstreamRefusal, type FieldProblem } from '../http/errors';
import type { RequestContext } from '../http/host-server';
import type { SandboxRuntime } from '../runtime/runtime';
import { scheduleOnAttach } from '../state/charging';
import type { CardTokenRecord, PaymentMethodRecord, ReservationRecord } from '../state/records';
import { newId } from '../state/store';
import { listAnswer } from './current-surface';

interface AttachRequest {
  tokenId: string;
  paymentProviderId: string;
  reservationId?: string;
  reuse: boolean;
}

function refuse(message: string, code: string): UpstreamRefusal {
  return new UpstreamRefusal(400, { message, code });
}

function readAttachRequest(ctx: RequestContext): AttachRequest {
  const body = parseJsonObject(ctx.headers['content-type'], ctx.rawBody);
  const problems: FieldProblem[] = [];
  const { _id, paymentProviderId, reservationId, reuse } = body;
  if (typeof _id !== 'string' || _id === '') problems.push({ field: '_id', message: 'is required' });
  if (typeof paymentProviderId !== 'string' || paymentProviderId === '') {
    problems.push({ field: 'paymentProviderId', message: 'is required' });
  }
  if (reservationId !== undefined && (typeof reservationId !== 'string' || reservationId === '')) {
    problems.push({ field: 'reservationId', message: 'must be a non-empty string' });
  }
  if (reuse !== undefined && typeof reuse !== 'boolean') problems.push({ field: 'reuse', message: 'must be a boolean' });
  if (problems.length > 0) throw invalidParameters(problems);
  return {
    tokenId: String(_id),
    paymentProviderId: String(paymentProviderId),
    reservationId: typeof reservationId === 'string' ? reservationId : undefined,
    reuse: reuse === true,
  };
}

function usableToken(runtime: SandboxRuntime, request: Pick<AttachRequest, 'tokenId' | 'paymentProviderId'>): CardTokenRecord {
  const token = runtime.store.cardTokens.get(request.tokenId);
  if (!token) throw refuse('Payment method token not found', 'TOKEN_NOT_FOUND');
  if (token.used) throw refuse('Payment method token already used', 'TOKEN_ALREADY_USED');
  if (token.paymentProviderId !== request.paymentProviderId) {
    throw refuse('The token was made under another payment provider than the one given', 'PAYMENT_PROVIDER_MISMATCH');
  }
  if (token.threeDS.outcome === 'pending') throw refuse('3DS authentication was not completed', 'THREE_DS_REQUIRED');
  if (token.threeDS.outcome === 'failed') throw refuse('3DS authentication failed', 'THREE_DS_FAILED');
  return token;
}

/**
 * Attaching charges nothing by itself: it schedules the reservation's payments on the card by the
 * listing's policy, only when the token was made under the listing's current provider; otherwise
 * the method is accepted and nothing ever shows in money.payments (docs/upstream-seed.md §7).
 */
function scheduleWhenChargeable(runtime: SandboxRuntime, reservation: ReservationRecord, method: PaymentMethodRecord, now: number): void {
  if (runtime.store.listingProviders.get(reservation.listingId) !== method.paymentProviderId) return;
  scheduleOnAttach(runtime.store, reservation, method, now, {
    visibilityDelayMs: runtime.options.paymentVisibilityDelayMs,
    settleDelayMs: runtime.options.chargeSettleDelayMs,
  });
}

/**
 * A method in the fields of the production list item a public integration published
 * (docs/upstream-reference/examples/guest-payment-method.json): `last4`/`brand` at the top level and
 * the card again under `payload.card`, its expiry as numbers. Sandbox control reads also name the
 * reservation; the platform's answers do so only under that reading (`platformView`).
 */
export function paymentMethodView(method: PaymentMethodRecord): Record<string, unknown> {
  return {
    _id: method._id,
    guestId: method.guestId,
    paymentProviderId: method.paymentProviderId,
    reservationId: method.reservationId ?? null,
    ...(method.confirmationCode ? { confirmationCode: method.confirmationCode } : {}),
    type: 'CARD',
    last4: method.card.last4,
    brand: method.card.brand,
    payload: {
      card: {
        brand: method.card.brand,
        last4: method.card.last4,
        exp_month: Number(method.card.exp_month),
        exp_year: Number(method.card.exp_year),
      },
    },
    status: 'ACTIVE',
    reuse: method.reuse,
    createdAt: new Date(method.createdAt).toISOString(),
  };
}

/** A method as the platform answers it: naming its booking by what the readings say items name (`methodNames`). */
function platformView(runtime: SandboxRuntime, method: PaymentMethodRecord): Record<string, unknown> {
  const { reservationId, confirmationCode, ...rest } = paymentMethodView(method);
  const { methodNames, listEchoesReservationId } = runtime.readings;
  const namesId = listEchoesReservationId || methodNames === 'reservationId' || methodNames === 'both';
  const namesCode = methodNames === 'code' || methodNames === 'both';
  return {
    ...rest,
    ...(namesId ? { reservationId } : {}),
    ...(namesCode && confirmationCode !== undefined ? { confirmationCode } : {}),
  };
}

export function attachPaymentMethod(ctx: RequestContext): SandboxAnswer {
  const { runtime, now } = ctx;
  const { store } = runtime;
  const request = readAttachRequest(ctx);
  const guest = store.guests.get(ctx.params.guestId);
  if (!guest) throw notFound(`Guest ${ctx.params.guestId} not found`);
  const token = usableToken(runtime, request);
  let reservation: ReservationRecord | undefined;
  if (request.reservationId !== undefined) {
    reservation = store.reservations.get(request.reservationId);
    if (!reservation) throw notFound(`Reservation ${request.reservationId} not found`);
    if (reservation.guestId !== guest._id) {
      throw refuse('The reservation does not belong to this guest', 'RESERVATION_GUEST_MISMATCH');
    }
  }
  return attachToken(runtime, guest._id, token, reservation, request.reuse, now);
}

/** The token spent on a new method of the guest, on the reservation when one is named: both surfaces' attach. */
function attachToken(
  runtime: SandboxRuntime,
  guestId: string,
  token: CardTokenRecord,
  reservation: ReservationRecord | undefined,
  reuse: boolean,
  now: number,
): SandboxAnswer {
  token.used = true;
  const method: PaymentMethodRecord = {
    _id: newId('pm_'),
    guestId,
    paymentProviderId: token.paymentProviderId,
    reservationId: reservation?._id,
    confirmationCode: reservation?.confirmationCode,
    reuse,
    card: { ...token.card },
    createdAt: now,
    charge: token.charge,
  };
  runtime.store.paymentMethods.set(method._id, method);
  if (reservation) {
    scheduleWhenChargeable(runtime, reservation, method, now);
    // A card attached, and the payments it scheduled: one change of the reservation.
    runtime.reservationChanged(reservation);
  }
  return jsonAnswer(201, platformView(runtime, method));
}

/** As the reference warns, without reservationId the list comes back empty even when methods exist; `reuse` filters (default true). */
export function listPaymentMethods(ctx: RequestContext): SandboxAnswer {
  const { store } = ctx.runtime;
  if (!store.guests.has(ctx.params.guestId)) throw notFound(`Guest ${ctx.params.guestId} not found`);
  const reservationId = ctx.url.searchParams.get('reservationId');
  if (!reservationId) return jsonAnswer(200, []);
  // The reference: `reuse` defaults to true ("methods allowed for reuse"), so a method attached
  // with reuse: false shows only when asked with reuse=false; whether reuse=false filters or lists
  // every method, and whether items name the reservation again, are readings (control.setReadings).
  const reuse = ctx.url.searchParams.get('reuse') !== 'false';
  const { readings } = ctx.runtime;
  const methods = [...store.paymentMethods.values()].filter(
    (method) =>
      method.guestId === ctx.params.guestId &&
      (method.reservationId === reservationId || readings.methodListFilter === 'ignored') &&
      (method.reuse === reuse || (!reuse && readings.reuseFalseLists === 'all')),
  );
  return jsonAnswer(
    200,
    methods.map((method) => platformView(ctx.runtime, method)),
  );
}

interface CreateRequest {
  guestId: string;
  tokenId: string;
  paymentProviderId: string;
  confirmationCode: string;
  reuse: boolean;
}

function readCreateRequest(ctx: RequestContext): CreateRequest {
  const body = parseJsonObject(ctx.headers['content-type'], ctx.rawBody);
  const problems: FieldProblem[] = [];
  const { guestId, _id, stripeCardToken, paymentProviderId, confirmationCode, reuse } = body;
  for (const [field, value] of Object.entries({ guestId, paymentProviderId, confirmationCode })) {
    if (typeof value !== 'string' || value === '') problems.push({ field, message: 'is required' });
  }
  if ((typeof _id === 'string' && _id !== '') === (stripeCardToken !== undefined)) {
    problems.push({ field: '_id', message: 'exactly one of _id or stripeCardToken is required' });
  }
  if (reuse !== undefined && typeof reuse !== 'boolean') problems.push({ field: 'reuse', message: 'must be a boolean' });
  if (problems.length > 0) throw invalidParameters(problems);
  return {
    guestId: String(guestId),
    tokenId: String(_id),
    paymentProviderId: String(paymentProviderId),
    confirmationCode: String(confirmationCode),
    reuse: reuse === true,
  };
}

/**
 * POST /v1/payment-methods (the payments API of 2026-10-21): the guest's card, linked to the booking
 * its `confirmationCode` names; attaching charges nothing by itself, as the legacy attach.
 */
export function createPaymentMethod(ctx: RequestContext): SandboxAnswer {
  const { runtime, now } = ctx;
  const { store } = runtime;
  const request = readCreateRequest(ctx);
  const guest = store.guests.get(request.guestId);
  if (!guest) throw notFound(`Guest ${request.guestId} not found`);
  const reservation = [...store.reservations.values()].find((candidate) => candidate.confirmationCode === request.confirmationCode);
  if (!reservation) throw notFound(`No reservation has the confirmation code ${request.confirmationCode}`);
  if (reservation.guestId !== guest._id) throw refuse('The reservation does not belong to this guest', 'RESERVATION_GUEST_MISMATCH');
  return attachToken(runtime, guest._id, usableToken(runtime, request), reservation, request.reuse, now);
}

/**
 * GET /v1/payment-methods?guestId=… or ?reservationId=… (exactly one): the guest's methods, or the
 * reservation's, unless the filter is ignored (a reading): then every card of the reservation's guest.
 */
export function listPaymentMethodsCurrent(ctx: RequestContext): SandboxAnswer {
  const { store, readings } = ctx.runtime;
  const guestId = ctx.url.searchParams.get('guestId');
  const reservationId = ctx.url.searchParams.get('reservationId');
  if ((guestId === null) === (reservationId === null)) {
    throw invalidParameters([{ field: 'reservationId', message: 'exactly one of guestId or reservationId is required' }]);
  }
  const reservation = reservationId === null ? undefined : store.reservations.get(reservationId);
  if (reservationId !== null && !reservation) throw notFound(`Reservation ${reservationId} not found`);
  const owner = guestId ?? reservation!.guestId;
  const methods = [...store.paymentMethods.values()].filter(
    (method) =>
      method.guestId === owner &&
      (reservationId === null || readings.methodListFilter === 'ignored' || method.reservationId === reservationId),
  );
  return listAnswer(
    ctx,
    methods.map((method) => platformView(ctx.runtime, method)),
  );
}
