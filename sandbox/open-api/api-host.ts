/** The Open API host: the token issuer and the /v1 routes the product uses. */
import { jsonAnswer } from '../http/answer';
import { UpstreamRefusal } from '../http/errors';
import type { HostDefinition, RequestContext } from '../http/host-server';
import { openApiRoute, passGate } from './gate';
import {
  createGuest,
  createQuote,
  createReservationFromQuote,
  getCalendar,
  getQuote,
  listGuests,
  updateReservationStatus,
} from './booking';
import { addInvoiceItemCurrent, addInvoiceItemDeprecated } from './invoice-items';
import { getListing, listListings, providerByListing } from './listings';
import { attachPaymentMethod, createPaymentMethod, listPaymentMethods, listPaymentMethodsCurrent } from './payment-methods';
import { getReservation } from './reservations';
import { getFolioInvoiceItems, getFolioOverview, getGuest, getReservationsV3, listPayments } from './current-surface';
import type { RouteHandler } from '../http/host-server';

/**
 * A legacy route: the reservation read the platform retires on 2027-03-01 (changelog 2026-11-05), or
 * a guest payment-method route, deprecated with no removal date. Each answers 404 "retired" unless
 * its reading still serves it (`legacyRoutes`, `legacyPaymentMethodRoutes`).
 */
function legacy(handler: RouteHandler, reading: 'legacyRoutes' | 'legacyPaymentMethodRoutes' = 'legacyRoutes'): RouteHandler {
  return (ctx) => {
    if (ctx.runtime.readings[reading] === 'served') return handler(ctx);
    throw new UpstreamRefusal(404, {
      message:
        reading === 'legacyRoutes'
          ? 'This endpoint was retired on 2027-03-01; see the reservation migration guide'
          : 'This endpoint was retired; see the payments API',
      code: 'RETIRED',
    });
  };
}
import { handleTokenRequest } from './token-issuer';

const ID = '(?<id>[^/]+)';

function unmatched(ctx: RequestContext, status: 404 | 405) {
  const refusal = () => {
    throw new UpstreamRefusal(status, {
      message: status === 404 ? 'Route not found' : 'Method not allowed',
      code: status === 404 ? 'NOT_FOUND' : 'METHOD_NOT_ALLOWED',
    });
  };
  if (ctx.url.pathname.startsWith('/v1/')) return passGate(ctx, refusal);
  return jsonAnswer(status, { message: status === 404 ? 'Route not found' : 'Method not allowed' });
}

export const apiHost: HostDefinition = {
  routes: [
    { name: 'token', method: 'POST', path: /^\/oauth2\/token\/?$/, handle: handleTokenRequest },
    openApiRoute('listings', 'GET', /^\/v1\/listings\/?$/, '/listings', listListings),
    openApiRoute('listing', 'GET', new RegExp(`^/v1/listings/${ID}/?$`), '/listings/{id}', getListing),
    openApiRoute(
      'providerByListing',
      'GET',
      /^\/v1\/payment-providers\/provider-by-listing\/?$/,
      '/payment-providers/provider-by-listing',
      providerByListing,
    ),
    // One name per product operation on either surface: faults and counters aim at what the product does.
    openApiRoute('reservation', 'GET', /^\/v1\/reservations-v3\/?$/, '/reservations-v3', getReservationsV3),
    openApiRoute('reservation', 'GET', new RegExp(`^/v1/reservations/${ID}/?$`), '/reservations/{id}', legacy(getReservation)),
    openApiRoute('guest', 'GET', /^\/v1\/guests-crud\/(?<guestId>[^/]+)\/?$/, '/guests-crud/{guestId}', getGuest),
    openApiRoute('folioOverview', 'GET', /^\/v1\/guest-folio\/overview\/?$/, '/guest-folio/overview', getFolioOverview),
    openApiRoute('folioItems', 'GET', /^\/v1\/guest-folio\/invoice-items\/?$/, '/guest-folio/invoice-items', getFolioInvoiceItems),
    openApiRoute('payments', 'GET', /^\/v1\/payments\/?$/, '/payments', listPayments),
    openApiRoute('paymentMethods', 'POST', /^\/v1\/payment-methods\/?$/, '/payment-methods', createPaymentMethod),
    openApiRoute('listPaymentMethods', 'GET', /^\/v1\/payment-methods\/?$/, '/payment-methods', listPaymentMethodsCurrent),
    openApiRoute(
      'paymentMethods',
      'POST',
      /^\/v1\/guests\/(?<guestId>[^/]+)\/payment-methods\/?$/,
      '/guests/{id}/payment-methods',
      legacy(attachPaymentMethod, 'legacyPaymentMethodRoutes'),
    ),
    openApiRoute(
      'listPaymentMethods',
      'GET',
      /^\/v1\/guests\/(?<guestId>[^/]+)\/payment-methods\/?$/,
      '/guests/{id}/payment-methods',
      legacy(listPaymentMethods, 'legacyPaymentMethodRoutes'),
    ),
    openApiRoute(
      'invoiceItems',
      'POST',
      new RegExp(`^/v1/invoice-items/reservation/${ID}/?$`),
      '/invoice-items/reservation/{reservationId}',
      addInvoiceItemCurrent,
    ),
    openApiRoute(
      'invoiceItemsDeprecated',
      'POST',
      new RegExp(`^/v1/reservations/${ID}/invoiceItems/?$`),
      '/reservations/{id}/invoiceItems',
      addInvoiceItemDeprecated,
    ),
    openApiRoute(
      'calendar',
      'GET',
      new RegExp(`^/v1/availability-pricing/api/calendar/listings/${ID}/?$`),
      '/availability-pricing/api/calendar/listings/{id}',
      getCalendar,
    ),
    openApiRoute('createQuote', 'POST', /^\/v1\/quotes\/?$/, '/quotes', createQuote),
    openApiRoute('quote', 'GET', new RegExp(`^/v1/quotes/${ID}/?$`), '/quotes/{quoteId}', getQuote),
    openApiRoute('guests', 'POST', /^\/v1\/guests-crud\/?$/, '/guests-crud', createGuest),
    openApiRoute('guestsList', 'GET', /^\/v1\/guests-crud\/?$/, '/guests-crud', listGuests),
    openApiRoute('reservationFromQuote', 'POST', /^\/v1\/reservations-v3\/quote\/?$/, '/reservations-v3/quote', createReservationFromQuote),
    openApiRoute(
      'reservationStatus',
      'PUT',
      new RegExp(`^/v1/reservations-v3/${ID}/status/?$`),
      '/reservations-v3/{reservationId}/status',
      updateReservationStatus,
    ),
  ],
  unmatched,
};
