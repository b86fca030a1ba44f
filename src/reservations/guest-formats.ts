/*
 * Money and dates in the guest's messages, written one way (the demo page formats them the same):
 * amounts by Intl with their currency's symbol and minor units ("£797.10"), days by their calendar date
 * ("Wed 25 Nov 2026"). Dates of payments are instants; the day shown is the UTC day the platform uses.
 */
const MONEY_LOCALE = 'en';
const DAY_LOCALE = 'en-GB';

export function moneyText(amount: number, currency: string | undefined): string {
  if (!currency) return new Intl.NumberFormat(MONEY_LOCALE, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(amount);
  return new Intl.NumberFormat(MONEY_LOCALE, { style: 'currency', currency }).format(amount);
}

export function dayText(instant: string): string {
  const date = new Date(instant.length === 10 ? `${instant}T00:00:00Z` : instant);
  // From the parts, so every ICU writes it alike (some put a comma after the weekday).
  const parts = new Intl.DateTimeFormat(DAY_LOCALE, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  }).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((item) => item.type === type)?.value ?? '';
  return `${part('weekday')} ${part('day')} ${part('month')} ${part('year')}`;
}

/** Payments charged on one day, each named and their sum: "2 payments, €319.00 and €319.00 (€638.00 in all)". */
export function paymentsTogether(payments: readonly { amount: number }[], currency: string | undefined): string {
  const each = new Intl.ListFormat(MONEY_LOCALE, { type: 'conjunction' }).format(
    payments.map((payment) => moneyText(payment.amount, currency)),
  );
  const sum = Math.round(payments.reduce((total, payment) => total + payment.amount, 0) * 100) / 100;
  return `${payments.length} payments, ${each} (${moneyText(sum, currency)} in all)`;
}
