import { Browser, chromium } from 'playwright-core';

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
