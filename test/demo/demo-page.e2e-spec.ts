import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { startSandboxMode } from '../../sandbox/sandbox-mode';
import { RunningSandbox } from '../../sandbox/types';
import { launchChromium } from '../utils/browser';
import { CARDS } from '../utils/checkout-client';
import { freePort } from '../utils/redis-server';
import { ROOT } from '../utils/service-process';
import { startTestApp, TestApp } from '../utils/test-app';
import { testConfig } from '../utils/test-config';

const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const DAY_MS = 24 * 3600 * 1000;

const isoDay = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);

/**
 * The demo page (sandbox/demo/public) in Debian's Chromium, at a phone's and a desktop's width,
 * checked by what a guest sees: texts, and where the inputs are — never by pixels.
 */
describe('the demo checkout page in a real browser', () => {
  let service: TestApp;
  let sandbox: RunningSandbox;
  let browser: Browser;
  let page: Page;
  let requested: string[];
  let failed: string[];

  beforeAll(async () => {
    const port = await freePort();
    const mode = await startSandboxMode(
      testConfig({
        SANDBOX: 'true',
        PORT: String(port),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        PAYMENT_STATUS_REFRESH_SECONDS: '1',
        CHECKOUT_IP_RATE_LIMIT: '10000/m',
        CHECKOUT_IP_READ_LIMIT: '10000/m',
        // Every booking of this file comes from one address and some stay unpaid (failed charges).
        BOOKING_HOLDS_PER_IP: '100000/h',
        BOOKING_UNPAID_HOLDS_PER_LISTING: '1000',
        UPSTREAM_ANONYMOUS_SHARE: '100',
      }),
    );
    sandbox = mode.sandbox!;
    service = await startTestApp({}, { config: mode.config, sandbox });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await service.close();
    await sandbox.stop();
  });

  async function open(viewport: { width: number; height: number }): Promise<void> {
    page = await browser.newPage({ viewport });
    page.setDefaultTimeout(15_000);
    requested = [];
    failed = [];
    page.on('request', (req) => requested.push(`${req.isNavigationRequest() ? 'nav' : 'sub'} ${req.url()}`));
    page.on('response', (res) => {
      if (res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
    });
    await page.goto(`${service.url}/demo`);
    // The calendar, or the problem the page shows instead of it (said in the failure).
    await page.locator('#calendar .day, #quote-error:not(:empty)').first().waitFor();
    expect(await page.locator('#quote-error').innerText()).toBe('');
  }

  afterEach(() => page?.close());

  const status = (text: string) => page.locator('#final-status', { hasText: text }).waitFor();

  /** The top of an element on the page, to say what a guest reads first. */
  const topOf = async (selector: string) => (await page.locator(selector).boundingBox())!.y;

  async function keepScreenshot(name: string): Promise<void> {
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  }

  /** Nothing wider than the screen, and the inputs of each visible row side by side, on one line. */
  async function expectTidyLayout(width: number): Promise<void> {
    // Measured in the page (a string: the test's own types know no DOM).
    const layout: { scrollWidth: number; rows: number[][]; inputs: { left: number; right: number }[]; labels: number[] } = await page.evaluate(`(() => {
      const shown = (element) => element.offsetParent !== null;
      const rows = [...document.querySelectorAll('.row')].filter(shown);
      return {
        scrollWidth: document.documentElement.scrollWidth,
        rows: rows.map((row) => [...row.querySelectorAll('input, select')].map((input) => Math.round(input.getBoundingClientRect().top))),
        inputs: [...document.querySelectorAll('input, select, pre')]
          .filter((element) => shown(element) && element.type !== 'radio')
          .map((element) => element.getBoundingClientRect())
          .map((box) => ({ left: box.left, right: box.right })),
        labels: [...document.querySelectorAll('.field label')].filter(shown).map((label) => label.getBoundingClientRect().height),
      };
    })()`);
    expect(layout.scrollWidth).toBeLessThanOrEqual(width);
    for (const tops of layout.rows) expect(new Set(tops).size).toBe(1);
    for (const box of layout.inputs) {
      expect(box.left).toBeGreaterThanOrEqual(0);
      expect(box.right).toBeLessThanOrEqual(width);
    }
    // One line each: a wrapped label is taller than two thirds of two lines.
    for (const height of layout.labels) expect(height).toBeLessThan(32);
  }

  async function pickStay(fromDay: number, nights: number): Promise<void> {
    await page.click(`[data-date="${isoDay(fromDay)}"]`);
    await page.click(`[data-date="${isoDay(fromDay + nights)}"]`);
    await page.click('#get-quote');
    await page.locator('#rate-plans .plan').first().waitFor();
  }

  async function bookAndPay(fromDay: number, nights: number, card: string): Promise<void> {
    await pickStay(fromDay, nights);
    await page.click('#to-guest');
    await page.click('#book');
    // The card step, or the problem the page shows instead (said in the failure).
    await page.locator('#step-card:not([hidden]), #book-error:not(:empty)').first().waitFor();
    expect(await page.locator('#book-error').innerText()).toBe('');
    await page.fill('#number', card);
    await page.click('#pay');
  }

  for (const viewport of [PHONE, DESKTOP]) {
    it(`books a stay at ${viewport.width} px: calendar, quote, guest, card, confirmation code and payment schedule`, async () => {
      await open(viewport);
      const fromDay = viewport === PHONE ? 2 : 5;
      await expectTidyLayout(viewport.width);
      // The grid names each month (it always spans a month change) and prices carry their currency.
      const months = await page.locator('#calendar .month').allInnerTexts();
      expect(months.length).toBeGreaterThanOrEqual(2);
      for (const month of months) expect(month).toMatch(/^[A-Z][a-z]+ \d{4}$/);
      const firstOfMonth = page.locator('#calendar .day[data-date$="-01"]').first();
      expect((await firstOfMonth.boundingBox())!.y).toBeGreaterThan((await page.locator('#calendar .month').nth(1).boundingBox())!.y);
      expect(await page.locator(`[data-date="${isoDay(fromDay)}"] small`).innerText()).toMatch(/^\$\d+(\.\d\d)?$/);
      await pickStay(fromDay, 3);
      const quoteText = await page.locator('#quote').innerText();
      expect(quoteText).toContain('3 nights');
      expect(quoteText).toMatch(/Flexible: \$[\d,.]+/);
      expect(quoteText).toMatch(/cleaning \$60\.00/);

      await page.click('#to-guest');
      await expectTidyLayout(viewport.width);
      await page.click('#book');
      await page.locator('#step-card').waitFor();
      // The card step says which stay is being paid for.
      const payingFor = await page.locator('#paying-for').innerText();
      expect(payingFor).toContain('Paying for:');
      expect(payingFor).toContain('3 nights');
      expect(payingFor).toContain(new Date(`${isoDay(fromDay)}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' }));
      await expectTidyLayout(viewport.width);

      await page.fill('#number', CARDS.noThreeDs);
      await page.click('#pay');
      await status('Paid');
      await page.locator('#confirmation', { hasText: /Booking confirmed — confirmation code \S+/ }).waitFor();
      expect(await page.locator('#schedule').innerText()).toMatch(/\$[\d,.]+ — paid on/);
      expect(await page.locator('#done-stay').innerText()).toContain('3 nights');
      await expectTidyLayout(viewport.width);
      expect(failed).toEqual([]);
      await keepScreenshot(`demo-booked-${viewport.width}`);

      // An extra after paying: what is due and who collects it, never "Paid" and never "processing".
      expect(await page.locator('#done-stay').innerText()).not.toMatch(/held/);
      await page.selectOption('#extra', 'cleaning');
      await page.fill('#quantity', '2');
      await page.click('#add-extra');
      await status('$70.00 still due — the host will collect it');
      const message = await page.locator('#final-message').innerText();
      expect(message).toContain('$70.00 is still due');
      expect(message).toContain('the host will collect it');
      expect(await page.locator('#step-done').innerText()).not.toMatch(/Paid —|being processed|Nothing more to do/);
      expect(await topOf('#final-status')).toBeLessThan(await topOf('#schedule-box'));
      await expectTidyLayout(viewport.width);
      await keepScreenshot(`demo-extra-due-${viewport.width}`);
    });
  }

  it('shows a failed charge as a failure, offers no extras, and takes another card for the same booking', async () => {
    await open(PHONE);
    await bookAndPay(23, 2, CARDS.processorError);
    await status('payment needed');
    const shown = await page.locator('#step-done').innerText();
    expect(shown).toContain('0341');
    expect(shown).toMatch(/another card/i);
    expect(shown).not.toMatch(/Paid —|Succeeded/);
    expect(await page.locator('#final-status').getAttribute('class')).toContain('failed');
    expect(await page.locator('#extras').isHidden()).toBe(true);
    await expectTidyLayout(PHONE.width);
    // What to do: another card, on the same booking.
    await page.click('#retry');
    await page.fill('#number', CARDS.noThreeDs);
    await page.click('#pay');
    await status('Paid');
    await page.locator('#confirmation', { hasText: 'confirmation code' }).waitFor();
  });

  it('goes through the 3-D Secure page and back, only to the service and the issuer', async () => {
    await open(DESKTOP);
    await bookAndPay(17, 2, CARDS.threeDs);
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await status('Paid');
    // The stay is said again on the page the issuer sent the guest back to.
    expect(await page.locator('#done-stay').innerText()).toContain('2 nights');
    const serviceOrigin = new URL(service.url).origin;
    const issuerOrigin = new URL(sandbox.urls.payUrl).origin;
    for (const entry of requested) {
      const [kind, url] = entry.split(' ');
      const origin = new URL(url).origin;
      if (kind === 'sub') expect(origin).toBe(serviceOrigin);
      else expect([serviceOrigin, issuerOrigin]).toContain(origin);
    }
    expect(requested.some((entry) => entry.startsWith(`nav ${issuerOrigin}`))).toBe(true);
  });

  it('pays an existing reservation: a split payment shows what is scheduled and when, extras explained; the fixture is then marked used', async () => {
    await open(PHONE);
    await page.click('#mode-pay');
    await page.selectOption('#reservation', 'res-checkout-eur');
    await page.click('#start');
    await page.locator('#step-card').waitFor();
    expect(await page.locator('#paying-for').innerText()).toContain('res-checkout-eur');
    await page.fill('#number', CARDS.noThreeDs);
    await page.click('#pay');
    // The first instalment is charged a moment after the card is on file: the page shows it paid by itself.
    await page.locator('#schedule', { hasText: 'paid on' }).waitFor();
    await status('Card on file — next payment');
    expect(await page.locator('#final-status').innerText()).toMatch(/next payment €[\d,.]+ on \w{3} \d{1,2} \w{3} \d{4}$/);
    expect(await page.locator('#schedule').innerText()).toMatch(/paid on[\s\S]*scheduled due/);
    await page.locator('#extras-explain', { hasText: 'your card ending 4242, or by the host' }).waitFor();
    await page.click('#add-extra');
    await page.locator('#extra-result', { hasText: 'Added:' }).waitFor();
    // The schedule does not cover the extra: said beside the next payment, not hidden in it.
    await page.locator('#final-message', { hasText: 'A further €40.00 is due and not scheduled on the card: the host will collect it.' }).waitFor();
    await keepScreenshot('demo-split-with-extra-390');

    await page.goto(`${service.url}/demo`);
    await page.click('#mode-pay');
    const option = page.locator('#reservation option[value="res-checkout-eur"]');
    expect(await option.innerText()).toContain('used');
    expect(await option.isDisabled()).toBe(true);
  });

  it('pays a fresh reservation: a failed 3-D Secure authentication, then a second card', async () => {
    await open(DESKTOP);
    await page.click('#mode-pay');
    await page.click('#start');
    await page.locator('#step-card').waitFor();
    await page.fill('#number', CARDS.threeDs);
    await page.click('#pay');
    await page.getByRole('button', { name: 'Fail' }).click();
    await status('Payment failed — the card was not accepted');
    // One sentence says what to do, once.
    const explained = await page.locator('#final-message').innerText();
    expect(explained.match(/another card/gi) ?? []).toHaveLength(1);
    await keepScreenshot('demo-3ds-failed-1280');
    expect(await page.locator('#extras').isHidden()).toBe(true);
    await page.click('#retry');
    await page.fill('#number', CARDS.noThreeDs);
    await page.click('#pay');
    await status('Paid');
    expect(await page.locator('#done-stay').innerText()).toMatch(/Paying for: reservation res-\S+ at Seaside Villa/);
  });

  it('shows a validation error next to its field', async () => {
    await open(PHONE);
    await page.click('#mode-pay');
    await page.click('#start');
    await page.locator('#step-card').waitFor();
    await page.fill('#number', '4242424242424241');
    await page.click('#pay');
    await page.locator('.field-error[data-for="card.number"]', { hasText: 'valid card number' }).waitFor();
    expect(await page.getAttribute('#number', 'aria-invalid')).toBe('true');
  });

  it('is served with a strict Content-Security-Policy, and a favicon', async () => {
    const answer = await request(service.url).get('/demo').expect(200);
    expect(answer.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(answer.headers['content-security-policy']).toContain("default-src 'none'");
    await request(service.url).get('/demo/favicon.svg').expect(200).expect('Content-Type', /image\/svg\+xml/);
  });
});
