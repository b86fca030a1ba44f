import { CARDS } from '../utils/checkout-client';
import { DESKTOP, PHONE } from '../utils/browser';
import { useDemoBrowser } from './demo-browser';

const AUTH_AT_CHARGE = '4000002760003184';

/** Money and days as a guest reading English expects them (the page's locales): "€319.00", "Wed 25 Nov 2026". */
const euros = (amount: number) => new Intl.NumberFormat('en', { style: 'currency', currency: 'EUR' }).format(amount);
const day = (instant: string) => {
  const parts = new Intl.DateTimeFormat('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  }).formatToParts(new Date(instant));
  return ['weekday', 'day', 'month', 'year'].map((type) => parts.find((part) => part.type === type)!.value).join(' ');
};

interface ShownStatus {
  amountDue: number;
  payments: { amount: number; currency: string; status: string; dueAt?: string }[];
}

/**
 * The money states of the demo page in Debian's Chromium, at a phone's and a desktop's width: what
 * the guest must act on leads, the bank's page opens beside the site, prices keep their currency.
 * A file of its own: its own sandbox, so its bookings and polls have the platform's budget to themselves.
 */
describe('the demo page tells the guest the truth about the money', () => {
  const demo = useDemoBrowser();
  const { open, status, topOf, keepScreenshot, expectTidyLayout, bookAndPay } = demo;

  it('writes a price of £262.50 as it is, with its currency', async () => {
    await open(PHONE);
    await demo.page.selectOption('#listing', 'lst-mountain');
    // Friday and Saturday nights cost 1.25 × £210 there.
    const weekend = demo.page.locator('#calendar .day:not(.taken)', { has: demo.page.locator('small', { hasText: '£262.50' }) }).first();
    await weekend.waitFor();
    expect(await demo.page.locator('#calendar').innerText()).not.toMatch(/\b263\b/);
    await expectTidyLayout(PHONE.width);
  });

  for (const viewport of [PHONE, DESKTOP]) {
    it(`leads with "Booking confirmed — payment needed" when the confirmed booking's charge fails, at ${viewport.width} px`, async () => {
      await open(viewport);
      await bookAndPay(viewport === PHONE ? 11 : 20, 2, CARDS.processorError);
      await status('Booking confirmed — payment needed');
      await demo.page.locator('#confirmation', { hasText: /Confirmation code \S+\. Payment failed\./ }).waitFor();
      // What the guest must act on comes first, then the code, then the replacement card.
      expect(await topOf('#final-status')).toBeLessThan(await topOf('#confirmation'));
      expect(await demo.page.locator('#retry').isVisible()).toBe(true);
      expect(await topOf('#confirmation')).toBeLessThan(await topOf('#retry'));
      expect(await demo.page.locator('#final-status').getAttribute('class')).toContain('failed');
      expect(await demo.page.locator('#confirmation').getAttribute('class')).toContain('quiet');
      expect(await demo.page.locator('#step-done').innerText()).not.toMatch(/Booking confirmed — confirmation code/);
      expect((await demo.page.locator('#final-message').innerText()).match(/another card/gi) ?? []).toHaveLength(1);
      await expectTidyLayout(viewport.width);
      await keepScreenshot(`demo-confirmed-payment-needed-${viewport.width}`);
    });
  }

  for (const viewport of [PHONE, DESKTOP]) {
    it(`opens the bank's page for a charge in a new tab while the site's page keeps polling, then shows it paid, at ${viewport.width} px`, async () => {
      await open(viewport);
      await bookAndPay(viewport === PHONE ? 14 : 26, 2, AUTH_AT_CHARGE);
      await status('confirm the payment with your bank');
      expect(await demo.page.locator('#extras').isHidden()).toBe(true);
      const siteUrl = demo.page.url();
      const [issuer] = await Promise.all([demo.page.waitForEvent('popup'), demo.page.click('#authenticate')]);
      await demo.page.locator('#authenticate-note', { hasText: 'opened in a new tab' }).waitFor();
      await issuer.getByRole('button', { name: 'Authenticate' }).click();
      await issuer.locator('#result', { hasText: 'Payment authenticated' }).waitFor();
      // The site's page never left; it learns the outcome by itself.
      await status('Paid');
      expect(demo.page.url()).toBe(siteUrl);
      expect(siteUrl).toMatch(/\/demo\/reference\?session=cs_[^&]+&status=succeeded$/);
      expect(await demo.page.locator('#authenticate').isHidden()).toBe(true);
      await issuer.close();
      await keepScreenshot(`demo-charge-authenticated-${viewport.width}`);
    });
  }

  for (const viewport of [PHONE, DESKTOP]) {
    it(`names two instalments due at once together: both amounts, their sum and the one day, at ${viewport.width} px`, async () => {
      await open(viewport);
      await demo.page.selectOption('#listing', 'lst-city');
      await demo.page.locator('#calendar .day small', { hasText: '€' }).first().waitFor();
      // Paris charges half at booking and half 14 days before check-in: for a stay under two weeks
      // away both halves fall due at once, and stay scheduled until the platform's scheduler runs.
      demo.sandbox.control.holdCharges();
      try {
        await bookAndPay(viewport === PHONE ? 3 : 7, 2, CARDS.noThreeDs);
        await status('Card on file — 2 payments');
        const shown = JSON.parse(await demo.page.locator('#diagnostics').innerText()) as ShownStatus;
        const [first, second] = shown.payments;
        expect(shown.payments).toHaveLength(2);
        expect(shown.payments.map((payment) => [payment.status, payment.currency, day(payment.dueAt!)])).toEqual([
          ['PENDING', 'EUR', day(first.dueAt!)],
          ['PENDING', 'EUR', day(first.dueAt!)],
        ]);
        expect(first.amount + second.amount).toBeCloseTo(shown.amountDue, 2);
        const both = `${euros(first.amount)} and ${euros(second.amount)} (${euros(shown.amountDue)} in all)`;
        const when = day(first.dueAt!);

        // The headline names both payments, their sum and the one day; never one "next payment".
        expect(await demo.page.locator('#final-status').innerText()).toBe(`Card on file — 2 payments, ${both}, due on ${when}`);
        expect(await demo.page.locator('#final-message').innerText()).toContain(`2 payments, ${both}, will be charged on ${when}.`);
        expect(await demo.page.locator('#schedule li').allInnerTexts()).toEqual([
          `${euros(first.amount)} — scheduled due ${when}`,
          `${euros(second.amount)} — scheduled due ${when}`,
        ]);
        const read = (await demo.page.locator('#step-done > :not(#diagnostics)').allInnerTexts()).join('\n');
        expect(read).not.toMatch(/next payment|held/i);
        // Money one way (symbol, cents) and days one way, never the platform's "319 EUR" or "2026-11-25".
        expect(read).not.toMatch(/\d\s*(EUR|USD|GBP)\b|\d{4}-\d{2}-\d{2}/);
        for (const amount of read.match(/€[\d,.]+/g) ?? []) expect(amount).toMatch(/^€\d{1,3}(,\d{3})*\.\d{2}$/);
        // Read in this order: the headline, what it means, then the schedule.
        expect(await topOf('#final-status')).toBeLessThan(await topOf('#final-message'));
        expect(await topOf('#final-message')).toBeLessThan(await topOf('#schedule-box'));
        await expectTidyLayout(viewport.width);
        await keepScreenshot(`demo-two-due-at-once-${viewport.width}`);
      } finally {
        demo.sandbox.control.holdCharges(false);
      }
      // Once the platform charges them, the page says so by itself.
      await status('Paid');
    });
  }
});
