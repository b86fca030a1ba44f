import { AppConfig, ExtraDefinition } from '../src/config/app-config';
import { DynamicModule } from '@nestjs/common';
import { DemoModule } from './demo/demo.module';
import { describeSandbox } from './fixture-guide';
import { startSandbox } from './start-sandbox';
import { RunningSandbox, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, SandboxOptions } from './types';

/** A catalogue to try extras with when none is configured (sandbox mode only). */
const DEMO_EXTRAS: ExtraDefinition[] = [
  { code: 'late-checkout', normalType: 'AFE', secondIdentifier: 'LATE_CHECKOUT', title: 'Late checkout', amount: 40 },
  { code: 'cleaning', normalType: 'CF', title: 'Extra cleaning', amount: 35 },
];

export interface SandboxMode {
  config: AppConfig;
  /** The demo page, served beside the product's routes. */
  modules: DynamicModule[];
  /** What to print at start: where the demo, the docs, the fixtures and the test cards are. */
  banner: string;
  sandbox: RunningSandbox;
}

/**
 * Sandbox mode (docs/product-spec.md §5): the simulated upstream runs in this process on loopback
 * ports and the service reaches it with the sandbox's credentials, so it runs exactly the code
 * paths of the real upstream. Configuration refuses it in production. `options` are a test's (one
 * that books more than the platform's minute allows raises both budgets).
 */
export async function startSandboxMode(config: AppConfig, options: SandboxOptions = {}): Promise<SandboxMode> {
  // The sandbox sends the platform's signed webhooks to this very process (docs/product-spec.md §5).
  const sandbox = await startSandbox({
    ...options,
    host: '127.0.0.1',
    webhookSecret: config.guesty.webhookSecret,
    webhookUrl: `http://127.0.0.1:${config.http.port}/webhooks/guesty`,
  });
  const base = config.http.publicBaseUrl;
  return {
    sandbox,
    modules: [DemoModule.forSandbox(sandbox)],
    banner:
      `\nSANDBOX MODE: no Guesty credentials, so the service talks to the built-in simulator below.\n` +
      `Demo site: ${base}/demo   Reference integration: ${base}/demo/reference   API docs: ${base}/docs   Fixtures and test cards: docs/sandbox.md\n${describeSandbox(sandbox.urls)}` +
      `  Webhooks:           signed with ${sandbox.control.webhookSecret} and sent to ${base}/webhooks/guesty\n`,
    config: {
      ...config,
      // The demo's sample site is served by this service: its own origin may frame the checkout.
      http: { ...config.http, embedOrigins: [...new Set([...config.http.embedOrigins, new URL(base).origin])] },
      checkout: { ...config.checkout, extras: config.checkout.extras.length > 0 ? config.checkout.extras : DEMO_EXTRAS },
      guesty: {
        ...config.guesty,
        clientId: SANDBOX_CLIENT_ID,
        clientSecret: SANDBOX_CLIENT_SECRET,
        apiUrl: sandbox.urls.apiUrl,
        authUrl: sandbox.urls.authUrl,
        payUrl: sandbox.urls.payUrl,
        webhookSecret: config.guesty.webhookSecret ?? sandbox.control.webhookSecret,
      },
    },
  };
}
