import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { startSandbox } from '../../sandbox/start-sandbox';
import { RunningSandbox } from '../../sandbox/types';
import { figures, latencySummary, Load, Shot, ShotRequest, shoot, startLoad, statusCounts, waitFor } from '../utils/load';
import { waitUntil } from '../utils/redis-server';
import { BUILT_MAIN, ServiceProcess, spawnService } from '../utils/service-process';
import { testRedisUrl } from '../utils/test-config';
import { pointedAtSandbox } from '../utils/sandboxed-apps';

const CONCURRENCY = 10;
const SHUTDOWN_DELAY_MS = 500;
/** What each request of the load answers from a healthy instance. */
const EXPECTED: Record<string, number> = { createSession: 201, getSession: 200, listing: 200 };

/** One built service process, and whether the client (standing in for the load balancer) sends to it. */
interface Instance {
  name: string;
  service: ServiceProcess;
  url: string;
  /** True from its first ready answer until readiness is anything but 200 (or the connection is refused). */
  inRotation: boolean;
  stopPolling(): void;
}

/**
 * Several instances of the built service (`node dist/src/main.js`, as in production) against ONE
 * sandbox started here and one Redis key prefix. The client stops sending to an instance once its
 * readiness is not 200, as a load balancer does; a request refused at connect time never started.
 */
describe('instances stopped under load (built service processes, one sandbox)', () => {
  let sandbox: RunningSandbox;
  let env: Record<string, string>;
  let instances: Instance[] = [];
  let loads: Load[] = [];

  async function startInstance(name: string): Promise<Instance> {
    const service = spawnService(BUILT_MAIN, { ...env, PORT: '0' });
    const listening = await service.waitForLog((entry) => entry.msg === 'booking checkout service listening', 20_000);
    const url = `http://127.0.0.1:${listening.port as number}`;
    await waitUntil(
      async () => (await shoot({ op: 'ready', target: name, url: `${url}/health/ready`, timeoutMs: 2_000 })).status === 200,
      10_000,
      `${name} ready`,
    );
    let polling = true;
    const instance: Instance = { name, service, url, inRotation: true, stopPolling: () => (polling = false) };
    // Readiness polled every 50 ms, well inside SHUTDOWN_DELAY_MS: out of rotation before the listener closes.
    void (async () => {
      while (polling && instance.inRotation) {
        const ready = await shoot({ op: 'ready', target: name, url: `${url}/health/ready`, timeoutMs: 1_000 });
        if (ready.status !== 200) instance.inRotation = false;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    instances.push(instance);
    return instance;
  }

  async function terminate(instance: Instance): Promise<{ code: number | null; outOfRotationAfterMs: number }> {
    const sent = Date.now();
    instance.service.child.kill('SIGTERM');
    await waitFor(() => !instance.inRotation, 5_000, `${instance.name} out of rotation`);
    const outOfRotationAfterMs = Date.now() - sent;
    return { code: await instance.service.exited, outOfRotationAfterMs };
  }

  let knownSession = '';

  /** Round robin over the instances in rotation: a session creation (upstream read, token, Redis), a session read, a cached listing. */
  function startRotationLoad(): Load {
    let next = 0;
    const load = startLoad(CONCURRENCY, (_worker, turn) => {
      const live = instances.filter((instance) => instance.inRotation);
      if (live.length === 0) return null;
      const instance = live[next++ % live.length];
      const op = Object.keys(EXPECTED)[turn % 3];
      if (op === 'createSession') return newSession(instance);
      if (op === 'getSession') return { op, target: instance.name, url: `${instance.url}/checkout/sessions/${knownSession}` };
      return { op, target: instance.name, url: `${instance.url}/checkout/listings/lst-seaside` };
    });
    loads.push(load);
    return load;
  }

  function newSession(instance: Instance): ShotRequest {
    const guestEmail = `guest-${randomUUID().slice(0, 8)}@example.com`;
    const { reservationId } = sandbox.control.createReservation({ listingId: 'lst-seaside', guestEmail, balanceDue: 300, currency: 'USD' });
    return {
      op: 'createSession',
      target: instance.name,
      method: 'POST',
      url: `${instance.url}/checkout/sessions`,
      json: { reservationId, email: guestEmail },
    };
  }

  /** Started requests that did not get their complete, expected answer (refused connections never started). */
  function outcome(shots: Shot[]) {
    const notStarted = shots.filter((shot) => shot.error === 'ECONNREFUSED');
    const started = shots.filter((shot) => shot.error !== 'ECONNREFUSED');
    const failed = started.filter((shot) => shot.status !== EXPECTED[shot.op]);
    return { notStarted, started, failed };
  }

  const answeredBy = (shots: Shot[], name: string, op?: string) =>
    shots.filter((shot) => shot.target === name && shot.status === EXPECTED[shot.op] && (!op || shot.op === op));

  beforeEach(async () => {
    sandbox = await startSandbox({ paymentVisibilityDelayMs: 0, rateLimits: { perSecond: 100, perMinute: 6000, perHour: 100000 } });
    env = {
      ...pointedAtSandbox(sandbox.urls),
      LOG_PRETTY: 'false',
      REDIS_URL: testRedisUrl(),
      SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS),
      SHUTDOWN_DRAIN_MS: '5000',
      CHECKOUT_IP_RATE_LIMIT: '100000/m',
      CHECKOUT_IP_READ_LIMIT: '100000/m',
      UPSTREAM_RATE_LIMITS: '100/s,6000/m,100000/h',
      DOCS_ENABLED: 'false',
    };
  });

  afterEach(async () => {
    await Promise.all(loads.map((load) => load.stop()));
    loads = [];
    for (const instance of instances) {
      instance.stopPolling();
      if (instance.service.child.exitCode === null && instance.service.child.signalCode === null) {
        instance.service.child.kill('SIGKILL');
        await instance.service.exited;
      }
    }
    instances = [];
    await sandbox.stop();
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${env.REDIS_KEY_PREFIX}*`, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  });

  /** Two instances share the token: the first mints it, the second takes it from Redis; a session to read. */
  async function warm(first: Instance, second: Instance): Promise<void> {
    const created = await shoot(newSession(first));
    expect(created.status).toBe(201);
    knownSession = (created.body as { id: string }).id;
    expect((await shoot(newSession(second))).status).toBe(201);
    expect(sandbox.control.counters.tokensMinted).toBe(1);
  }

  it('SIGTERM on one of two instances mid-load: every request that started gets its complete answer, and the instance exits 0', async () => {
    const [a, b] = await Promise.all([startInstance('A'), startInstance('B')]);
    await warm(a, b);
    // Upstream reads take 200 ms: requests are in flight when the signal lands and must be drained.
    sandbox.control.setRouteDelay('reservation', 200);
    const load = startRotationLoad();
    await waitFor(() => answeredBy(load.shots, 'A', 'createSession').length >= 10, 15_000, '10 sessions created on A');
    const signalled = Date.now();
    const { code, outOfRotationAfterMs } = await terminate(a);
    const exited = Date.now();
    await waitFor(
      () => answeredBy(load.shots, 'B', 'createSession').filter((shot) => shot.startedAt > exited).length >= 5,
      15_000,
      'B serving after A exited',
    );
    const shots = await load.stop();

    expect(code).toBe(0);
    const { notStarted, started, failed } = outcome(shots);
    expect(failed.map((shot) => ({ op: shot.op, to: shot.target, status: shot.status, error: shot.error, code: shot.code }))).toEqual([]);
    // A drained what it had: requests in flight when SIGTERM came, and those sent while readiness was turning.
    const drained = answeredBy(shots, 'A').filter((shot) => shot.startedAt + shot.ms > signalled);
    expect(drained.length).toBeGreaterThan(0);
    expect(answeredBy(shots, 'A').every((shot) => shot.startedAt + shot.ms <= exited + 50)).toBe(true);
    figures(
      `SIGTERM mid-load: A out of rotation ${outOfRotationAfterMs} ms after the signal, exited ${exited - signalled} ms after it with ${code}; ` +
        `${started.length} requests started (${JSON.stringify(statusCounts(started))}), ${failed.length} failed, ${notStarted.length} refused before starting, ` +
        `${drained.length} answered by A after the signal; ${latencySummary(started)}`,
    );
  });

  it('a rolling restart of all instances under load mints no new token', async () => {
    const [first, second] = await Promise.all([startInstance('P1'), startInstance('P2')]);
    await warm(first, second);
    const load = startRotationLoad();
    const exits: (number | null)[] = [];
    let generation = 3;
    for (const old of [first, second]) {
      const replacement = await startInstance(`P${generation++}`);
      // The new instance serves upstream reads (it needs the token) before the old one goes.
      await waitFor(() => answeredBy(load.shots, replacement.name, 'createSession').length >= 3, 15_000, `${replacement.name} serving`);
      exits.push((await terminate(old)).code);
    }
    const last = instances[instances.length - 1];
    const since = Date.now();
    await waitFor(
      () => answeredBy(load.shots, last.name, 'createSession').filter((shot) => shot.startedAt > since).length >= 3,
      15_000,
      'the last instance serving',
    );
    const shots = await load.stop();

    expect(exits).toEqual([0, 0]);
    expect(sandbox.control.counters.tokensMinted).toBe(1);
    const { started, failed } = outcome(shots);
    expect(failed.map((shot) => ({ op: shot.op, to: shot.target, status: shot.status, error: shot.error, code: shot.code }))).toEqual([]);
    for (const name of ['P1', 'P2', 'P3', 'P4']) expect(answeredBy(shots, name, 'createSession').length).toBeGreaterThan(0);
    figures(
      `rolling restart: ${started.length} requests (${JSON.stringify(statusCounts(started))}) over P1..P4, ` +
        `sessions created per instance ${['P1', 'P2', 'P3', 'P4'].map((name) => answeredBy(shots, name, 'createSession').length).join('/')}, ` +
        `tokens minted ${sandbox.control.counters.tokensMinted}; ${latencySummary(started)}`,
    );
  });
});
