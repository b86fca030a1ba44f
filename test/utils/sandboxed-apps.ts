import { webhookSubscription } from '../../sandbox/runtime/webhooks';
import { startSandbox } from '../../sandbox/start-sandbox';
import { RunningSandbox, SandboxOptions, SandboxUrls, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET } from '../../sandbox/types';
import { ManualClock } from './manual-clock';
import { freePort } from './redis-server';
import { startTestApp, TestApp } from './test-app';
import { testConfig, testKeyPrefix } from './test-config';

export interface SandboxedApps {
  sandbox: RunningSandbox;
  apps: TestApp[];
  clocks: ManualClock[];
  /** Environment the apps were started with (to start more replicas alike). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A production-like service (not sandbox mode) pointed at a running simulator, on a fresh key prefix. */
export function pointedAtSandbox(urls: SandboxUrls): Record<string, string> {
  return {
    SANDBOX: 'false',
    GUESTY_CLIENT_ID: SANDBOX_CLIENT_ID,
    GUESTY_CLIENT_SECRET: SANDBOX_CLIENT_SECRET,
    GUESTY_API_URL: urls.apiUrl,
    GUESTY_PAY_URL: urls.payUrl,
    CHECKOUT_RETURN_URL: 'http://localhost:8080/checkout/done',
    // The simulator starts with the test: no write sent before this store can land (store-loss tests turn it on).
    WRITE_HOLD_ON_NEW_STORE: 'false',
    REDIS_KEY_PREFIX: testKeyPrefix(),
  };
}

/**
 * The sandbox as upstream (real HTTP) and `count` replicas of the service sharing one Redis key
 * prefix, each with a clock the test can move. The apps run with SANDBOX=false: exactly the code
 * paths of production, pointed at the simulator.
 */
export async function startSandboxedApps(
  count: number,
  options: { env?: Record<string, string>; sandbox?: SandboxOptions; webhooks?: boolean } = {},
): Promise<SandboxedApps> {
  // `webhooks`: the platform's signed webhooks go to the first replica, as a subscribed account's do.
  const subscription = webhookSubscription(options.webhooks === true);
  const sandbox = await startSandbox({ ...options.sandbox, ...subscription.sandbox });
  const env: Record<string, string> = {
    ...pointedAtSandbox(sandbox.urls),
    ...subscription.env,
    ...options.env,
  };
  // The first replica's address is the public one: 3-D Secure return URLs point at it (a test that
  // names a page of the service in its configuration gives the port itself).
  const firstPort = env.PORT ? Number(env.PORT) : await freePort();
  env.PUBLIC_BASE_URL ??= `http://127.0.0.1:${firstPort}`;
  const clocks = Array.from({ length: count }, () => new ManualClock());
  const apps: TestApp[] = [];
  for (const [index, clock] of clocks.entries()) {
    apps.push(await startTestApp({}, { config: testConfig({ ...env, PORT: index === 0 ? String(firstPort) : '0' }), clock }));
  }
  sandbox.control.setWebhookTarget(subscription.target(apps[0].url));
  return {
    sandbox,
    apps,
    clocks,
    env,
    close: async () => {
      for (const app of apps) await app.close();
      await sandbox.stop();
    },
  };
}
