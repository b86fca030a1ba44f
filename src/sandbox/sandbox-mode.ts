import { AppConfig, ExtraDefinition } from '../config/app-config';
import { startSandbox } from './start-sandbox';
import { RunningSandbox, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET } from './types';

/** A catalogue to try extras with when none is configured (sandbox mode only). */
const DEMO_EXTRAS: ExtraDefinition[] = [
  { code: 'late-checkout', normalType: 'AFE', secondIdentifier: 'LATE_CHECKOUT', title: 'Late checkout', amount: 40 },
  { code: 'cleaning', normalType: 'CF', title: 'Extra cleaning', amount: 35 },
];

export interface SandboxMode {
  config: AppConfig;
  sandbox?: RunningSandbox;
}

/**
 * Sandbox mode (SPEC.md §5): the simulated upstream runs in this process on loopback ports and the
 * service is pointed at it with the sandbox's credentials, so it runs exactly the code paths it
 * runs against the real upstream. Production never gets here (configuration refuses it).
 */
export async function startSandboxMode(config: AppConfig): Promise<SandboxMode> {
  if (!config.runtime.sandbox) return { config };
  const sandbox = await startSandbox({ host: '127.0.0.1' });
  return {
    sandbox,
    config: {
      ...config,
      checkout: { ...config.checkout, extras: config.checkout.extras.length > 0 ? config.checkout.extras : DEMO_EXTRAS },
      guesty: {
        ...config.guesty,
        clientId: SANDBOX_CLIENT_ID,
        clientSecret: SANDBOX_CLIENT_SECRET,
        apiUrl: sandbox.urls.apiUrl,
        authUrl: sandbox.urls.authUrl,
        payUrl: sandbox.urls.payUrl,
      },
    },
  };
}
