import { ChildProcess, spawn } from 'node:child_process';
import { benchKeyPrefix, benchRedisUrl, deleteKeys, percentile } from './bench-world';
import { printTable } from './cold-start';
import { cpuMs, rssMb, startServiceProcess, waitForOk } from './processes';
import { versusBare } from './versus-bare';

const CONNECTIONS = 50;

export interface Load {
  requestsPerSecond: number;
  p99: number;
  /** The server's CPU time (user + system) per answer, in µs, when its process was given. */
  cpuUsPerAnswer?: number;
}

/** A server under load: its URL, and its process when its CPU time is to be counted. */
export interface LoadTarget {
  url: string;
  server?: ChildProcess;
}

/** autocannon as its own process, so the load generator does not share the server's CPU time slice. */
export function autocannon(target: LoadTarget | string, seconds: number): Promise<Load> {
  const { url, server } = typeof target === 'string' ? { url: target, server: undefined } : target;
  const cpuBefore = server ? cpuMs(server) : 0;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [require.resolve('autocannon/autocannon.js'), '-j', '-c', String(CONNECTIONS), '-d', String(seconds), url],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', () => {
      try {
        const result = JSON.parse(out) as { requests: { average: number; total: number }; latency: { p99: number } };
        const load: Load = { requestsPerSecond: result.requests.average, p99: result.latency.p99 };
        if (server && result.requests.total > 0) load.cpuUsPerAnswer = (1000 * (cpuMs(server) - cpuBefore)) / result.requests.total;
        resolve(load);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/**
 * A warm-up of each, then `rounds` rounds loading every target in turn, in the order given, so a
 * noisy moment of the machine does not land on one side only. Each target's loads, round by round.
 */
export async function alternatingLoads(targets: (LoadTarget | string)[], options: { seconds: number; rounds: number }): Promise<Load[][]> {
  for (const target of targets) await autocannon(target, 2);
  const loads: Load[][] = targets.map(() => []);
  for (let round = 0; round < options.rounds; round += 1) {
    for (const [index, target] of targets.entries()) loads[index].push(await autocannon(target, options.seconds));
  }
  return loads;
}

/** Each round's ratio of one side's requests/s to another's, loaded in the same round. */
export const roundRatios = (side: Load[], base: Load[]) =>
  side.map((load, round) => load.requestsPerSecond / base[round].requestsPerSecond);

export const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/**
 * Scenarios 4 and 5 — the built service as its own process (sandbox mode, real Redis): time from
 * start to ready, a cached listing summary under 50 connections next to a bare Fastify server and a
 * bare node:http server sending the same answer (bench/versus-bare.ts), loaded in turns, and the
 * instance's RSS after the load.
 */
export async function processFigures(options: { seconds: number; rounds: number }): Promise<void> {
  const redisUrl = benchRedisUrl();
  const prefix = benchKeyPrefix();
  // One client address sends every request here: each read is counted by the per-IP read guard, as
  // every read is, but the limit is set so that it never refuses.
  const service = await startServiceProcess({ REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, CHECKOUT_IP_READ_LIMIT: '1000000/s' });
  try {
    const summaryUrl = `${service.url}/checkout/listings/lst-seaside`;
    await waitForOk(summaryUrl, 10_000);
    const { rows } = await versusBare(summaryUrl, '/checkout/listings/:id', service.child, options);
    const rss = rssMb(service.child);
    printTable(`4. cached listing summary, ${CONNECTIONS} connections`, rows);
    printTable('5. one instance', [
      ['start to ready (process spawn to /health/ready 200)', `${service.readyMs.toFixed(0)} ms`],
      ['RSS after the load', `${rss.toFixed(0)} MB`],
    ]);
  } finally {
    await service.stop();
    await deleteKeys(redisUrl, prefix);
  }
}
