import path from 'node:path';
import { Browser, chromium } from 'playwright-core';
import { ROOT } from './service-process';

/** Where browser tests keep their screenshots, for a person to look at. */
export const ARTIFACTS = path.join(ROOT, 'test-artifacts');
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };
const DAY_MS = 24 * 3600 * 1000;

/** The calendar day `offset` days from today (UTC), as the checkout's day buttons name it. */
export const isoDay = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);

/**
 * Debian's Chromium, headless, as the machine provides it (never a downloaded browser). `npm test`
 * installs it when missing; when it could not, this says why instead of a launch stack.
 */
export function launchChromium(): Promise<Browser> {
  const missing = process.env.TEST_CHROMIUM_MISSING;
  if (missing) return Promise.reject(new Error(missing));
  return chromium.launch({
    executablePath: process.env.TEST_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
