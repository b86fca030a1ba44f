import { startSandbox } from '../../src/sandbox/start-sandbox';
import { RunningSandbox, SandboxOptions, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET } from '../../src/sandbox/types';
import { ManualClock } from './manual-clock';
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

/**
 * The sandbox as upstream (real HTTP) and `count` replicas of the service sharing one Redis key
 * prefix, each with a clock the test can move. The apps run with SANDBOX=false: exactly the code
 * paths of production, pointed at the simulator.
 */
export async function startSandboxedApps(
  count: number,
  options: { env?: Record<string, string>; sandbox?: SandboxOptions } = {},
): Promise<SandboxedApps> {
  const sandbox = await startSandbox(options.sandbox);
  const env: Record<string, string> = {
    SANDBOX: 'false',
    GUESTY_CLIENT_ID: SANDBOX_CLIENT_ID,
    GUESTY_CLIENT_SECRET: SANDBOX_CLIENT_SECRET,
    GUESTY_API_URL: sandbox.urls.apiUrl,
    GUESTY_PAY_URL: sandbox.urls.payUrl,
    CHECKOUT_RETURN_URL: 'http://localhost:8080/checkout/done',
    REDIS_KEY_PREFIX: testKeyPrefix(),
    ...options.env,
  };
  const clocks = Array.from({ length: count }, () => new ManualClock());
  const apps: TestApp[] = [];
  for (const clock of clocks) apps.push(await startTestApp({}, { config: testConfig(env), clock }));
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
