import { UpstreamCalendarDay, UpstreamListing, UpstreamQuote, UpstreamRatePlanMoney } from './guesty.types';
import { CalendarDay, PlatformListing, QuoteOffer, RatePlanMoney } from './platform-results';

/*
 * The platform's answers read into GuestyClient's results (platform-results.ts): the only place that
 * knows both shapes. A field the answer leaves out stays out of the result.
 */

export function listingOf(listing: UpstreamListing): PlatformListing {
  const picture = listing.pictures?.[0];
  return {
    id: listing._id,
    title: listing.title ?? listing.nickname,
    city: listing.address?.city,
    country: listing.address?.country,
    picture: picture?.original ?? picture?.thumbnail,
    currency: listing.prices?.currency,
  };
}

/** Only the fields the answer carries: a result never holds a key set to undefined. */
function present<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
}

export function calendarDayOf(day: UpstreamCalendarDay): CalendarDay {
  const { date, currency, price, minNights, status, allotment, cta, ctd } = day;
  return present({ date, currency, price, minNights, status, allotment, closedToArrival: cta, closedToDeparture: ctd });
}

function ratePlanMoneyOf(money: UpstreamRatePlanMoney): RatePlanMoney {
  return present({
    currency: money.currency,
    accommodationFare: money.fareAccommodation,
    discountedAccommodationFare: money.fareAccommodationAdjusted,
    accommodationDiscount: money.fareAccommodationDiscount,
    cleaningFee: money.fareCleaning,
    fees: money.totalFees,
    taxes: money.totalTaxes,
    subTotal: money.subTotalPrice,
    lines: money.invoiceItems,
  });
}

export function quoteOf(quote: UpstreamQuote): QuoteOffer {
  return present({
    id: quote._id,
    checkIn: quote.checkInDateLocalized,
    checkOut: quote.checkOutDateLocalized,
    expiresAt: quote.expiresAt,
    reservationId: quote.reservationId,
    coupons: quote.coupons,
    ratePlans: (quote.rates?.ratePlans ?? [])
      .map((entry) => entry.ratePlan ?? {})
      .map((plan) => present({ id: plan._id, name: plan.name, money: ratePlanMoneyOf(plan.money ?? {}) })),
  });
}
