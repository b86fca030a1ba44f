import { ChildProcess, fork } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import type { BareAnswer, BareKind } from './bare-server';
import { alternatingLoads, Load, median, roundRatios } from './process-figures';
import { DIST } from './processes';

/** One answer as it crossed the wire: its bytes, and what a bare server needs to send the same. */
interface WireAnswer {
  bytes: number;
  answer: BareAnswer;
}

// node:http writes these itself, with the same bytes for both servers.
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** A GET of `url` on a raw socket, as a load generator sends it, read to the last byte of its body. */
export function wireAnswer(url: string): Promise<WireAnswer> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('error', reject);
    socket.on('connect', () => socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const received = Buffer.concat(chunks);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = received.subarray(0, end).toString('latin1').split('\r\n').slice(1);
      const fields = lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]);
      const length = Number(fields.find(([name]) => name.toLowerCase() === 'content-length')?.[1] ?? 0);
      if (received.length < end + 4 + length) return;
      socket.destroy();
      const keepAlive = fields.find(([name]) => name.toLowerCase() === 'keep-alive')?.[1] ?? '';
      resolve({
        bytes: end + 4 + length,
        answer: {
          headers: fields.filter(([name]) => !CONNECTION_HEADERS.has(name.toLowerCase())).flat(),
          body: received.subarray(end + 4, end + 4 + length).toString('utf8'),
          keepAliveTimeoutMs: 1000 * Number(/timeout=(\d+)/.exec(keepAlive)?.[1] ?? 5),
        },
      });
    });
  });
}

/** A bare server (bench/bare-server.ts) in its own process, sending `answer`; Fastify serves it on `route`. */
async function startBare(kind: BareKind, answer: BareAnswer, route: string): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(path.join(DIST, 'bench/bare-server.js'), [kind], {
    env: { ...process.env, BENCH_BARE_ANSWER: JSON.stringify(answer), BENCH_BARE_ROUTE: route },
    stdio: 'ignore',
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the bare ${kind} server exited (${code})`)));
      child.once('message', (message: { port: number }) => resolve(message.port));
    });
    child.removeAllListeners('exit');
    return { child, port };
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
}

/**
 * The service's hot read at `serviceUrl` (route template `route`) beside bare Fastify (the goal's
 * baseline) and bare node:http (the floor), each in its own process sending the same bytes. Loaded
 * in turns `rounds` times; each ratio is the service's requests/s over a bare server's in the same
 * round, reported as the median beside the lowest and highest.
 */
export async function versusBare(
  serviceUrl: string,
  route: string,
  serviceProcess: ChildProcess,
  options: { seconds: number; rounds: number },
): Promise<{ rows: [string, string][]; bodyBytes: number }> {
  // The first read may be the one that fills the replica's copy; the hot answer is the next.
  await (await fetch(serviceUrl)).arrayBuffer();
  const service = await wireAnswer(serviceUrl);
  const { pathname, search } = new URL(serviceUrl);
  const bares: { kind: BareKind; child: ChildProcess; url: string }[] = [];
  try {
    for (const kind of ['node', 'fastify'] as const) {
      const { child, port } = await startBare(kind, service.answer, route);
      const url = `http://127.0.0.1:${port}${pathname}${search}`;
      bares.push({ kind, child, url });
      const bare = await wireAnswer(url);
      if (bare.bytes !== service.bytes) throw new Error(`the bare ${kind} answer has ${bare.bytes} bytes, the service's ${service.bytes}`);
    }
    const [node, fastify] = bares;
    const [nodeLoads, fastifyLoads, serviceLoads] = await alternatingLoads(
      [
        { url: node.url, server: node.child },
        { url: fastify.url, server: fastify.child },
        { url: serviceUrl, server: serviceProcess },
      ],
      options,
    );
    const percent = (ratio: number) => (100 * ratio).toFixed(0);
    const rate = (side: Load[]) =>
      `${median(side.map((load) => load.requestsPerSecond)).toFixed(0)}, ${median(side.map((load) => load.p99))} ms`;
    const cpu = (side: Load[]) => median(side.map((load) => load.cpuUsPerAnswer ?? 0)).toFixed(0);
    const ratio = (base: Load[]) => {
      const ratios = roundRatios(serviceLoads, base);
      return `${percent(median(ratios))} % (${percent(Math.min(...ratios))}–${percent(Math.max(...ratios))} %)`;
    };
    const rounds = `median of ${options.rounds} rounds of ${options.seconds} s in turns (lowest–highest)`;
    return {
      bodyBytes: Buffer.byteLength(service.answer.body),
      rows: [
        ['service requests/s, p99 (medians)', rate(serviceLoads)],
        ['bare Fastify, same answer, requests/s, p99 (medians)', rate(fastifyLoads)],
        ['bare node:http, same answer, requests/s, p99 (medians)', rate(nodeLoads)],
        ['bytes per answer, service = bare Fastify = bare node:http (headers and body)', String(service.bytes)],
        [
          'CPU per answer, service / bare Fastify / bare node:http (medians; user + system, 10 ms ticks)',
          `${cpu(serviceLoads)} / ${cpu(fastifyLoads)} / ${cpu(nodeLoads)} µs`,
        ],
        [`service / bare Fastify: ${rounds}; goal ≥ 50 %`, ratio(fastifyLoads)],
        [`service / bare node:http: ${rounds}`, ratio(nodeLoads)],
      ],
    };
  } finally {
    for (const bare of bares) bare.child.kill('SIGTERM');
  }
}
