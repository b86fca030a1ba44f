import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { startSandboxMode } from '../../sandbox/sandbox-mode';
import { RunningSandbox } from '../../sandbox/types';
import { launchChromium } from '../utils/browser';
import { freePort } from '../utils/redis-server';
import { ROOT } from '../utils/service-process';
import { startTestApp, TestApp } from '../utils/test-app';
import { testConfig } from '../utils/test-config';

const ARTIFACTS = path.join(ROOT, 'test-artifacts');

describe('the demo checkout page in a real browser', () => {
  let service: TestApp;
  let sandbox: RunningSandbox;
  let browser: Browser;
  let page: Page;
  let requested: string[];

  beforeAll(async () => {
    const port = await freePort();
    const mode = await startSandboxMode(testConfig({ SANDBOX: 'true', PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }));
    sandbox = mode.sandbox!;
    service = await startTestApp({}, { config: mode.config, sandbox });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await service.close();
    await sandbox.stop();
  });

  beforeEach(async () => {
    page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    requested = [];
    page.on('request', (req) => requested.push(`${req.isNavigationRequest() ? 'nav' : 'sub'} ${req.url()}`));
    await page.goto(`${service.url}/demo`);
    await page.locator('#reservation option').first().waitFor({ state: 'attached' });
  });

  afterEach(() => page.close());

  async function startAndEnterCard(number: string): Promise<void> {
    await page.click('#start');
    await page.locator('#step-card').waitFor();
    await page.fill('#number', number);
    await page.click('#pay');
  }

  const finalStatus = (text: string) => page.locator('#final-status', { hasText: text }).waitFor();

  it('pays without 3-D Secure and shows the diagnostics', async () => {
    await startAndEnterCard('4242424242424242');
    await finalStatus('Succeeded');
    await page.locator('#diagnostics', { hasText: '"code": "ok"' }).waitFor();
    expect(page.url()).toMatch(/\/demo\?session=cs_[^&]+&status=succeeded$/);
  });

  it('goes through the issuer page and back, only to the service and the issuer', async () => {
    await startAndEnterCard('4000000000003220');
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await finalStatus('Succeeded');
    await page.locator('#diagnostics', { hasText: '"state"' }).waitFor();
    const serviceOrigin = new URL(service.url).origin;
    const issuerOrigin = new URL(sandbox.urls.payUrl).origin;
    for (const entry of requested) {
      const [kind, url] = entry.split(' ');
      const origin = new URL(url).origin;
      if (kind === 'sub') expect(origin).toBe(serviceOrigin);
      else expect([serviceOrigin, issuerOrigin]).toContain(origin);
    }
    expect(requested.some((entry) => entry.startsWith(`nav ${issuerOrigin}`))).toBe(true);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'demo-3ds-succeeded.png'), fullPage: true });
  });

  it('shows a failed authentication, then a second card succeeds', async () => {
    await startAndEnterCard('4000000000003220');
    await page.getByRole('button', { name: 'Fail' }).click();
    await finalStatus('failed');
    await page.click('#retry');
    await page.fill('#number', '4242424242424242');
    await page.click('#pay');
    await finalStatus('Succeeded');
  });

  it('shows a validation error next to its field', async () => {
    await startAndEnterCard('4242424242424241');
    const fieldError = page.locator('.field-error[data-for="card.number"]');
    await fieldError.filter({ hasText: 'valid card number' }).waitFor();
    expect(await page.getAttribute('#number', 'aria-invalid')).toBe('true');
  });

  it('is served with a strict Content-Security-Policy, and only in sandbox mode', async () => {
    const answer = await request(service.url).get('/demo').expect(200);
    expect(answer.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(answer.headers['content-security-policy']).toContain("default-src 'none'");
  });
});
