import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { printTable } from './cold-start';

const ROOT = path.resolve(__dirname, '../..');
const SUMMARY = '{"id":"lst-seaside","title":"Seaside Villa with Ocean View","city":"Miami Beach","country":"US","picture":"https://images.example.com/seaside/1.jpg","currency":"USD"}';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(url).then((answer) => answer.ok, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${url} did not become ready`);
}

interface Load {
  requestsPerSecond: number;
  p99: number;
}

/** autocannon as its own process, so the load generator does not share the server's CPU time slice. */
function autocannon(url: string, connections: number, seconds: number): Promise<Load> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [require.resolve('autocannon/autocannon.js'), '-j', '-c', String(connections), '-d', String(seconds), url], { stdio: ['ignore', 'pipe', 'ignore'] });
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

function rssMb(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/**
 * Scenarios 4 and 5 — the built service as its own process (sandbox mode, real Redis): time from
 * start to ready, a cached listing summary under 50 connections next to a bare node:http server
 * answering the same JSON, and the instance's RSS after the load.
 */
export async function processFigures(options: { seconds: number }): Promise<void> {
  const port = await freePort();
  const started = performance.now();
  const service = spawn(process.execPath, [path.join(ROOT, 'dist/src/main.js')], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'warn', LOG_PRETTY: 'false', REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: `bench-process:${port}:` },
    stdio: 'ignore',
  });
  const barePort = await freePort();
  const bare = spawn(process.execPath, ['-e', `require('http').createServer((q,s)=>{s.setHeader('content-type','application/json');s.end(${JSON.stringify(SUMMARY)})}).listen(${barePort},'127.0.0.1')`], { stdio: 'ignore' });
  try {
    await waitFor(`http://127.0.0.1:${port}/health/ready`, 20_000);
    const readyMs = performance.now() - started;
    await waitFor(`http://127.0.0.1:${port}/checkout/listings/lst-seaside`, 10_000);
    await waitFor(`http://127.0.0.1:${barePort}/`, 5_000);
    const cached = await autocannon(`http://127.0.0.1:${port}/checkout/listings/lst-seaside`, 50, options.seconds);
    const rss = rssMb(service);
    const baseline = await autocannon(`http://127.0.0.1:${barePort}/`, 50, options.seconds);
    printTable('4. cached listing summary, 50 connections', [
      ['service requests/s, p99', `${cached.requestsPerSecond.toFixed(0)}, ${cached.p99} ms`],
      ['bare node:http requests/s, p99', `${baseline.requestsPerSecond.toFixed(0)}, ${baseline.p99} ms`],
      ['service / bare', `${((100 * cached.requestsPerSecond) / baseline.requestsPerSecond).toFixed(0)} %`],
    ]);
    printTable('5. one instance', [
      ['start to ready (process spawn to /health/ready 200)', `${readyMs.toFixed(0)} ms`],
      ['RSS after the load', `${rss.toFixed(0)} MB`],
    ]);
  } finally {
    service.kill('SIGTERM');
    bare.kill('SIGTERM');
  }
}
