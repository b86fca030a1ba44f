import { spawn } from 'node:child_process';
import { benchKeyPrefix, benchRedisUrl, deleteKeys, percentile } from './bench-world';
import { printTable } from './cold-start';
import { freePort, rssMb, startServiceProcess, waitForOk } from './processes';

const SUMMARY =
  '{"id":"lst-seaside","title":"Seaside Villa with Ocean View","city":"Miami Beach","country":"US","picture":"https://images.example.com/seaside/1.jpg","currency":"USD"}';
const CONNECTIONS = 50;

export interface Load {
  requestsPerSecond: number;
  p99: number;
}

/** autocannon as its own process, so the load generator does not share the server's CPU time slice. */
export function autocannon(url: string, seconds: number): Promise<Load> {
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
        const result = JSON.parse(out) as { requests: { average: number }; latency: { p99: number } };
        resolve({ requestsPerSecond: result.requests.average, p99: result.latency.p99 });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** A warm-up of each, then `rounds` alternating runs, so a noisy moment of the machine does not land on one side only. */
export async function alternatingLoads(
  serviceUrl: string,
  bareUrl: string,
  options: { seconds: number; rounds: number },
): Promise<{ service: Load[]; bare: Load[] }> {
  await autocannon(serviceUrl, 2);
  await autocannon(bareUrl, 2);
  const service: Load[] = [];
  const bare: Load[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    service.push(await autocannon(serviceUrl, options.seconds));
    bare.push(await autocannon(bareUrl, options.seconds));
  }
  return { service, bare };
}

export const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/**
 * Scenarios 4 and 5 — the built service as its own process (sandbox mode, real Redis): time from
 * start to ready, a cached listing summary under 50 connections next to a bare node:http server
 * answering the same JSON, and the instance's RSS after the load. The two servers are loaded in
 * turns (a warm-up, then `rounds` alternating runs) and the medians compared, so a noisy moment
 * of the machine does not land on one side only.
 */
export async function processFigures(options: { seconds: number; rounds: number }): Promise<void> {
  const redisUrl = benchRedisUrl();
  const prefix = benchKeyPrefix();
  // One client address sends every request here: the per-IP read limit is not what this measures.
  const service = await startServiceProcess({ REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, CHECKOUT_IP_READ_LIMIT: '1000000/s' });
  const barePort = await freePort();
  const bare = spawn(
    process.execPath,
    [
      '-e',
      `require('http').createServer((q,s)=>{s.setHeader('content-type','application/json');s.end(${JSON.stringify(SUMMARY)})}).listen(${barePort},'127.0.0.1')`,
    ],
    { stdio: 'ignore' },
  );
  try {
    const summaryUrl = `${service.url}/checkout/listings/lst-seaside`;
    const bareUrl = `http://127.0.0.1:${barePort}/`;
    await waitForOk(summaryUrl, 10_000);
    await waitForOk(bareUrl, 5_000);
    const { service: cached, bare: baseline } = await alternatingLoads(summaryUrl, bareUrl, options);
    const rss = rssMb(service.child);
    const serviceRate = median(cached.map((load) => load.requestsPerSecond));
    const bareRate = median(baseline.map((load) => load.requestsPerSecond));
    printTable(
      `4. cached listing summary, ${CONNECTIONS} connections (median of ${options.rounds} alternating ${options.seconds} s runs)`,
      [
        ['service requests/s, p99', `${serviceRate.toFixed(0)}, ${median(cached.map((load) => load.p99))} ms`],
        ['bare node:http requests/s, p99', `${bareRate.toFixed(0)}, ${median(baseline.map((load) => load.p99))} ms`],
        ['service / bare', `${((100 * serviceRate) / bareRate).toFixed(0)} %`],
      ],
    );
    printTable('5. one instance', [
      ['start to ready (process spawn to /health/ready 200)', `${service.readyMs.toFixed(0)} ms`],
      ['RSS after the load', `${rss.toFixed(0)} MB`],
    ]);
  } finally {
    await service.stop();
    bare.kill('SIGTERM');
    await deleteKeys(redisUrl, prefix);
  }
}
