/** The in-process control surface tests (and the service's sandbox mode) use to steer one sandbox. */
import { revokeAllTokens } from './open-api/token-issuer';
import type { SandboxRuntime } from './runtime/runtime';
import { blockNights, bookingState, holdsNights } from './state/booking-state';
import { reservationView } from './state/money';
import { createTestReservation } from './state/reservation-factory';
import { paymentMethodView } from './open-api/payment-methods';
import { PAYMENT_POLICIES } from './state/charging';
import { captureHold, refundPayment, settleRefund, takePayment } from './state/payments-taken';
import { SANDBOX_ROUTES, type CardTokenView, type SandboxControl, type SandboxRoute } from './types';

function checkedRoute(route: SandboxRoute): SandboxRoute {
  if (!SANDBOX_ROUTES.includes(route)) {
    throw new Error(`Unknown sandbox route "${String(route)}"; one of ${SANDBOX_ROUTES.join(', ')}`);
  }
  return route;
}

export function createControl(runtime: SandboxRuntime): SandboxControl {
  const moneyChanged = <T>(reservationId: string, made: T): T => {
    const reservation = runtime.store.reservations.get(reservationId);
    if (reservation) runtime.reservationChanged(reservation, { folio: true });
    return made;
  };
  return {
    reset: () => runtime.reset(),
    advanceClock: (ms) => {
      runtime.clock.advance(ms);
      // What the moved clock passed comes due at once, as the platform's scheduler would charge it.
      runtime.settle();
    },
    now: () => runtime.now(),
    setRouteDelay: (route, ms) => runtime.faults.setDelay(checkedRoute(route), ms),
    forceStatus: (route, status, options) => runtime.faults.force(checkedRoute(route), status, options),
    dropConnection: (route, options) => runtime.faults.drop(checkedRoute(route), options),
    slowWrite: (route, options) => runtime.faults.slowWrite(checkedRoute(route), options),
    actNow: (route) => runtime.faults.actNow(checkedRoute(route)),
    whenActed: (route, times = 1) => runtime.whenActed(checkedRoute(route), times),
    clearFaults: () => runtime.faults.clear(),
    revokeAllTokens: () => revokeAllTokens(runtime),

    setListingProvider(listingId, paymentProviderId) {
      const { store } = runtime;
      if (!store.listings.has(listingId)) throw new Error(`Unknown sandbox listing ${listingId}`);
      if (!store.providerByPaymentProviderId(paymentProviderId)) {
        throw new Error(`Unknown sandbox payment provider ${paymentProviderId}`);
      }
      store.listingProviders.set(listingId, paymentProviderId);
    },

    setProviderStatus(paymentProviderId, status) {
      const provider = runtime.store.providerByPaymentProviderId(paymentProviderId);
      if (!provider) throw new Error(`Unknown sandbox payment provider ${paymentProviderId}`);
      provider.status = status;
    },

    createReservation(input) {
      const created = createTestReservation(runtime.store, input, runtime.now());
      const reservation = runtime.store.reservations.get(created.reservationId);
      if (reservation) runtime.reservationCreated(reservation);
      if (reservation) runtime.reservationNightsChanged(reservation);
      return created;
    },

    cancelReservation(id, status = 'canceled') {
      const reservation = runtime.store.reservations.get(id);
      if (!reservation) throw new Error(`Unknown sandbox reservation ${id}`);
      if (!['canceled', 'declined', 'closed'].includes(status)) throw new Error('a reservation ends canceled, declined or closed');
      const heldNights = holdsNights(reservation.status);
      reservation.status = status;
      runtime.reservationChanged(reservation);
      if (heldNights) runtime.reservationNightsChanged(reservation);
    },
    setRateLimits: (limits) => runtime.limiter.setLimits(limits),

    get counters() {
      return structuredClone(runtime.counters);
    },

    get requestLog() {
      return runtime.requestLog.map((entry) => ({ ...entry }));
    },

    getReservation(id, options) {
      runtime.expireHolds();
      runtime.settle();
      const reservation = runtime.store.reservations.get(id);
      if (!reservation) return undefined;
      return reservationView(runtime.store, reservation, runtime.now(), options?.settled ?? false);
    },

    getToken(id): CardTokenView | undefined {
      const token = runtime.store.cardTokens.get(id);
      if (!token) return undefined;
      return {
        _id: token._id,
        paymentProviderId: token.paymentProviderId,
        listingId: token.listingId,
        card: { ...token.card },
        threeDS: { ...token.threeDS },
        used: token.used,
        createdAt: new Date(token.createdAt).toISOString(),
      };
    },

    settlePayments: () => runtime.settle(),

    holdCharges(held = true) {
      runtime.chargesHeld = held;
      if (!held) runtime.settle();
    },

    setPaymentPolicy(listingId, policy) {
      if (!runtime.store.listings.has(listingId)) throw new Error(`Unknown sandbox listing ${listingId}`);
      runtime.store.paymentPolicies.set(listingId, PAYMENT_POLICIES[policy]);
    },

    setWebhookTarget(url) {
      runtime.webhooks.target = url;
    },

    get webhookSecret() {
      return runtime.webhooks.secret;
    },

    get webhookDeliveries() {
      return runtime.webhooks.deliveries.map((delivery) => ({ ...delivery }));
    },

    webhooksSettled: () => runtime.webhooks.settled(),

    blockNights(listingId, from, to) {
      if (!runtime.store.listings.has(listingId)) throw new Error(`Unknown sandbox listing ${listingId}`);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to) || to < from) {
        throw new Error('blockNights takes two dates YYYY-MM-DD, from not after to');
      }
      blockNights(runtime.store, listingId, from, to, runtime.now());
      runtime.calendarChanged(listingId, from, to);
    },

    setChannelCommission(percent) {
      if (!Number.isFinite(percent) || percent < 0 || percent >= 100) throw new Error('a commission is a percent from 0 to under 100');
      bookingState(runtime.store, runtime.now()).commissionPercent = percent;
    },

    setReadings(readings) {
      runtime.readings = { ...runtime.readings, ...readings };
    },

    setCalendarWebhooks(kinds) {
      runtime.calendarWebhooks = [...kinds];
    },

    // A change of money the platform announces as any other: `reservation.updated.v2` and `guest-folio.updated`.
    addPayment: (reservationId, payment) =>
      moneyChanged(reservationId, { paymentId: takePayment(runtime.store, reservationId, payment, runtime.now())._id }),
    capturePayment: (reservationId, holdId, options) =>
      moneyChanged(reservationId, { paymentId: captureHold(runtime.store, reservationId, holdId, runtime.now(), options?.amount)._id }),
    refundPayment: (reservationId, paymentId, refund) =>
      moneyChanged(reservationId, { refundId: refundPayment(runtime.store, reservationId, paymentId, runtime.now(), refund)._id }),
    settleRefund: (reservationId, paymentId, refundId, status) => {
      settleRefund(runtime.store, reservationId, paymentId, refundId, status);
      moneyChanged(reservationId, undefined);
    },

    getPaymentMethods(guestId) {
      return [...runtime.store.paymentMethods.values()].filter((method) => method.guestId === guestId).map(paymentMethodView);
    },

    getGuestsByEmail(email) {
      const wanted = email.trim().toLowerCase();
      return [...runtime.store.guests.values()].filter((guest) => guest.email.toLowerCase() === wanted).map((guest) => ({ ...guest }));
    },

    getGuestReservations(guestId) {
      runtime.expireHolds();
      return [...runtime.store.reservations.values()]
        .filter((reservation) => reservation.guestId === guestId)
        .map(({ _id, status, listingId }) => ({ _id, status, listingId }));
    },

    getQuote(id) {
      const quote = bookingState(runtime.store, runtime.now()).quotes.get(id);
      return quote ? (structuredClone(quote) as unknown as Record<string, unknown>) : undefined;
    },
  };
}
