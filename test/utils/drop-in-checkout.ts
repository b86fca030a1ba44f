import { FrameLocator } from 'playwright-core';
import { isoDay } from './browser';

/**
 * A guest in the drop-in checkout's frame: the stay (with a coupon when given), the rate, their
 * details and the booking, up to the card step. Fails saying the page's problem where one shows.
 */
export async function bookStay(checkout: FrameLocator, fromDay: number, nights: number, coupon = ''): Promise<void> {
  await pickDate(checkout, isoDay(fromDay));
  await pickDate(checkout, isoDay(fromDay + nights));
  if (coupon) await checkout.getByLabel('Coupon (optional)').fill(coupon);
  await checkout.getByRole('button', { name: 'See prices' }).click();
  // The rates, or the problem the page shows instead (said in the failure).
  await checkout.locator('.plan, #stay-error:not(:empty)').first().waitFor();
  expect(await checkout.locator('#stay-error').innerText()).toBe('');
  // A coupon's discount shows in the rate's breakdown, as the platform quoted it.
  if (coupon) expect(await checkout.locator('.plan small').first().innerText()).toMatch(/discount −\$\d/);
  await checkout.getByRole('button', { name: 'Continue' }).click();
  await checkout.getByLabel('First name').fill('Olivia');
  await checkout.getByLabel('Last name').fill('Guest');
  await checkout.getByLabel('Email').fill(`olivia-${fromDay}@example.com`);
  await checkout.getByRole('button', { name: 'Book and continue to payment' }).click();
  await checkout.getByRole('heading', { name: 'Pay by card' }).waitFor();
}

/** The calendar's months on the page once each is read (or says it could not be). */
export const monthsSettled = (checkout: FrameLocator) => checkout.locator('#calendar:not(:has(.month .hint))').waitFor();

/** Presses the day, paging the calendar forward a month at a time until the day is on screen. */
export async function pickDate(checkout: FrameLocator, date: string): Promise<void> {
  const day = checkout.locator(`[data-date="${date}"]`);
  await monthsSettled(checkout);
  for (let pages = 0; pages < 18 && !(await day.isVisible()); pages += 1) {
    await checkout.locator('#month-next').click();
    await monthsSettled(checkout);
  }
  await day.click();
}

/** The service's own card form, filled with `number` and a billing address tokenization takes. */
export async function fillCard(checkout: FrameLocator, number: string): Promise<void> {
  await checkout.getByLabel('Card number').fill(number);
  await checkout.getByLabel('Expiry (MM/YY)').fill(`12/${String(new Date().getFullYear() + 2).slice(2)}`);
  await checkout.getByLabel('Security code').fill('737');
  await checkout.getByLabel('Name on card').fill('Olivia Guest');
  await checkout.getByLabel('Billing address').fill('1 Ocean Drive');
  await checkout.getByLabel('Postal code').fill('33139');
  await checkout.getByLabel('City').fill('Miami Beach');
  await checkout.getByLabel('Country (2 letters, e.g. US)').fill('US');
}
