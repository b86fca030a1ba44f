/**
 * One function starts both simulated upstream hosts on their own loopback ports: the Open API with
 * its token issuer, and the tokenization host. Each call is an independent instance.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createControl } from './control';
import { createHostServer, type TimerSet } from './http/host-server';
import { apiHost } from './open-api/api-host';
import { prepareReferenceGate } from './open-api/gate';
import { payHost } from './pay/pay-host';
import { resolveOptions, SandboxRuntime } from './runtime/runtime';
import type { RunningSandbox, SandboxOptions } from './types';

export { SANDBOX_TEST_CARDS } from './pay/test-cards';
export { describeSandbox, SANDBOX_LISTINGS, SANDBOX_RESERVATIONS } from './fixture-guide';
export type { SandboxListingGuide, SandboxReservationGuide } from './fixture-guide';
export type { SandboxTestCard, TestCardOutcome } from './pay/test-cards';
export { SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, SANDBOX_ROUTES } from './types';
export type * from './types';

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function baseUrl(server: Server, host: string): string {
  const { port } = server.address() as AddressInfo;
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

export async function startSandbox(options?: SandboxOptions): Promise<RunningSandbox> {
  prepareReferenceGate();
  const runtime = new SandboxRuntime(resolveOptions(options));
  const { host, apiPort, payPort } = runtime.options;
  const timers: TimerSet = new Set();
  const apiServer = createHostServer(runtime, apiHost, timers);
  const payServer = createHostServer(runtime, payHost, timers);
  try {
    await listen(apiServer, apiPort, host);
    await listen(payServer, payPort, host);
  } catch (error) {
    await Promise.all([close(apiServer), close(payServer)]);
    throw error;
  }
  const apiUrl = baseUrl(apiServer, host);
  runtime.payUrl = baseUrl(payServer, host);
  // The platform's scheduler: charges come due without anyone asking (and their webhooks go out).
  const scheduler = setInterval(() => runtime.settle(), 100);
  scheduler.unref();
  let stopping: Promise<void> | undefined;
  return {
    urls: { apiUrl, authUrl: apiUrl, payUrl: runtime.payUrl },
    control: createControl(runtime),
    stop() {
      stopping ??= (async () => {
        clearInterval(scheduler);
        await runtime.webhooks.settled();
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        await Promise.all([close(apiServer), close(payServer)]);
      })();
      return stopping;
    },
  };
}
