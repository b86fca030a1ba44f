import { SandboxedApps, startSandboxedApps } from './sandboxed-apps';
import { ServiceProcess, spawnReplica } from './service-process';
import { testRedisUrl } from './test-config';

/**
 * One app in the test's process, and replicas of the built service a test may kill (SIGKILL), all
 * on one sandbox and Redis: call inside a describe; every replica left is killed after each test.
 */
export function killableReplicas(env: Record<string, string>): {
  world: () => SandboxedApps;
  doomedReplica: () => Promise<ServiceProcess & { url: string }>;
} {
  let world: SandboxedApps;
  const spawned: ServiceProcess[] = [];
  beforeAll(async () => {
    world = await startSandboxedApps(1, { env, sandbox: { paymentVisibilityDelayMs: 0 } });
  });
  afterEach(() => {
    world.sandbox.control.clearFaults();
    for (const service of spawned.splice(0)) service.child.kill('SIGKILL');
  });
  afterAll(() => world.close());
  return {
    world: () => world,
    doomedReplica: async () => {
      const service = await spawnReplica(world.env, testRedisUrl());
      spawned.push(service);
      return service;
    },
  };
}
