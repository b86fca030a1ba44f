import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Browser, Page } from 'playwright-core';
import { startSandboxMode } from '../../sandbox/sandbox-mode';
import { RunningSandbox } from '../../sandbox/types';
import { ARTIFACTS, isoDay, launchChromium } from '../utils/browser';
import { freePort } from '../utils/redis-server';
import { startTestApp, TestApp } from '../utils/test-app';
import { testConfig } from '../utils/test-config';

/**
 * The demo page (sandbox/demo/public) in Debian's Chromium for one test file: its own sandbox and
 * service in sandbox mode (so its bookings have the platform's budget to themselves), one browser,
 * and what a test does as a guest. Call it inside the file's describe: it registers the hooks.
 */
export function useDemoBrowser() {
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
        BOOKING_UNPAID_NIGHTS_PER_LISTING: '100000',
        UPSTREAM_ANONYMOUS_SHARE: '100',
        // A file of bookings one after another spends more than the platform's minute (a guest never would).
        UPSTREAM_RATE_LIMITS: '100/s,6000/m,100000/h',
      }),
      { rateLimits: { perSecond: 100, perMinute: 6000, perHour: 100_000 } },
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
    await page.goto(`${service.url}/demo/reference`);
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
    const layout: { scrollWidth: number; rows: number[][]; inputs: { left: number; right: number }[]; labels: number[] } =
      await page.evaluate(`(() => {
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
  return {
    get page() {
      return page;
    },
    get requested() {
      return requested;
    },
    get failed() {
      return failed;
    },
    get service() {
      return service;
    },
    get sandbox() {
      return sandbox;
    },
    get browser() {
      return browser;
    },
    open,
    status,
    topOf,
    keepScreenshot,
    expectTidyLayout,
    pickStay,
    bookAndPay,
  };
}
