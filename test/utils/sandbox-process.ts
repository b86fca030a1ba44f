import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { recordViolation, type ContractViolation } from '../../sandbox/open-api/contract-violations';
import { webhookSubscription } from '../../sandbox/runtime/webhooks';
import type { SandboxControl, SandboxOptions, SandboxUrls } from '../../sandbox/types';
import { pointedAtSandbox } from './sandboxed-apps';
import { ROOT } from './service-process';
import { startTestApp, TestApp } from './test-app';
import { testConfig } from './test-config';

/** The built sandbox in its own process (scripts/test.js builds before the tests run). */
const BUILT_SANDBOX = path.join(ROOT, 'dist/sandbox/own-process.js');

export interface SandboxProcess {
  urls: SandboxUrls;
  /** A control member of the sandbox: a method's result, or a property's value (as JSON). */
  control<K extends keyof SandboxControl>(
    member: K,
    ...args: SandboxControl[K] extends (...a: infer A) => unknown ? A : []
  ): Promise<SandboxControl[K] extends (...a: never[]) => infer R ? R : SandboxControl[K]>;
  /** Once every request the sandbox refused so far is recorded here, for the file's contract gate. */
  violationsHeard(): Promise<void>;
  /** Hears the last violations, then ends the process. */
  stop(): Promise<void>;
}

/**
 * The sandbox as a separate process, for tests that judge what reaches the platform in time: in the
 * test's own process a stalled loop would bunch the arrivals it counts. A request it refuses by the
 * reference is recorded here as it arrives, so the contract gate (test/utils/contract-gate.ts)
 * fails on it as on an in-process sandbox.
 */
export async function startSandboxProcess(options: SandboxOptions = {}): Promise<SandboxProcess> {
  const child = fork(BUILT_SANDBOX, [JSON.stringify(options)], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      for (const waiter of pending.values()) waiter.reject(new Error('the sandbox process exited'));
      pending.clear();
      resolve();
    }),
  );
  let nextId = 0;
  const ask = (message: Record<string, unknown>) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ id, ...message });
    });
  const urls = await new Promise<SandboxUrls>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the sandbox process exited (${code}) before it was ready`)));
    child.on('message', (message: { ready?: SandboxUrls; violation?: ContractViolation; id?: number; value?: unknown; error?: string }) => {
      if (message.ready) return resolve(message.ready);
      if (message.violation) return recordViolation(message.violation);
      const waiter = message.id === undefined ? undefined : pending.get(message.id);
      if (!waiter || message.id === undefined) return;
      pending.delete(message.id);
      if (message.error !== undefined) waiter.reject(new Error(message.error));
      else waiter.resolve(message.value);
    });
  });
  const violationsHeard = async () => {
    if (child.connected) await ask({ barrier: true });
  };
  return {
    urls,
    control: ((member: string, ...args: unknown[]) => ask({ member, args })) as SandboxProcess['control'],
    violationsHeard,
    async stop() {
      await violationsHeard();
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}

/** A reservation of a guest of its own with a balance due, as `freshReservation` makes one in this process. */
export async function freshReservationIn(sandbox: SandboxProcess, balanceDue = 500, listingId = 'lst-seaside', currency = 'USD') {
  const guestEmail = `guest-${randomUUID().slice(0, 8)}@example.com`;
  const created = await sandbox.control('createReservation', { listingId, guestEmail, balanceDue, currency });
  return { ...created, guestEmail };
}

export interface AppsOnSandboxProcess {
  sandbox: SandboxProcess;
  apps: TestApp[];
  close(): Promise<void>;
}

/** `count` replicas of the service (in this process) on the sandbox in its own process. */
export async function startAppsOnSandboxProcess(
  count: number,
  options: { env?: Record<string, string>; sandbox?: SandboxOptions; webhooks?: boolean } = {},
): Promise<AppsOnSandboxProcess> {
  // `webhooks`: the platform's signed webhooks go to the first replica, as a subscribed account's do.
  const subscription = webhookSubscription(options.webhooks === true);
  const sandbox = await startSandboxProcess({ ...options.sandbox, ...subscription.sandbox });
  const env = { ...pointedAtSandbox(sandbox.urls), ...subscription.env, ...options.env };
  const apps: TestApp[] = [];
  for (let index = 0; index < count; index += 1) apps.push(await startTestApp({}, { config: testConfig(env) }));
  await sandbox.control('setWebhookTarget', subscription.target(apps[0].url));
  return {
    sandbox,
    apps,
    close: async () => {
      for (const app of apps) await app.close();
      await sandbox.stop();
    },
  };
}
