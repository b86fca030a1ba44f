import { ChildProcess, fork } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import type { BareAnswer } from './bare-server';
import { alternatingLoads, Load, median } from './process-figures';
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

/**
 * The service's hot read at `serviceUrl` against a bare node:http server (bench/bare-server.ts)
 * sending the same answer, request id included, so both put the same bytes on the wire; loaded in
 * turns, bare first, `rounds` times. Each round's ratio is the service's requests/s over the bare
 * server's just before; the figure is their median, beside the extremes.
 */
export async function versusBare(
  serviceUrl: string,
  serviceProcess: ChildProcess,
  options: { seconds: number; rounds: number },
): Promise<{ rows: [string, string][]; bodyBytes: number }> {
  // The first read may be the one that fills the replica's copy; the hot answer is the next.
  await (await fetch(serviceUrl)).arrayBuffer();
  const service = await wireAnswer(serviceUrl);
  const child = fork(path.join(DIST, 'bench/bare-server.js'), [], {
    env: { ...process.env, BENCH_BARE_ANSWER: JSON.stringify(service.answer) },
    stdio: 'ignore',
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the bare server exited (${code})`)));
      child.once('message', (message: { port: number }) => resolve(message.port));
    });
    const { pathname, search } = new URL(serviceUrl);
    const bareUrl = `http://127.0.0.1:${port}${pathname}${search}`;
    const bare = await wireAnswer(bareUrl);
    if (bare.bytes !== service.bytes) throw new Error(`the bare answer has ${bare.bytes} bytes, the service's ${service.bytes}`);
    const loads = await alternatingLoads({ url: bareUrl, server: child }, { url: serviceUrl, server: serviceProcess }, options);
    const percent = (ratio: number) => (100 * ratio).toFixed(0);
    const rate = (side: Load[]) =>
      `${median(side.map((load) => load.requestsPerSecond)).toFixed(0)}, ${median(side.map((load) => load.p99))} ms`;
    const cpu = (side: Load[]) => median(side.map((load) => load.cpuUsPerAnswer ?? 0)).toFixed(0);
    return {
      bodyBytes: Buffer.byteLength(service.answer.body),
      rows: [
        ['service requests/s, p99 (medians)', rate(loads.second)],
        ['bare node:http, same answer, requests/s, p99 (medians)', rate(loads.first)],
        ['bytes per answer, service = bare (headers and body)', String(service.bytes)],
        ['CPU per answer, service / bare (medians; user + system, 10 ms ticks)', `${cpu(loads.second)} / ${cpu(loads.first)} µs`],
        [
          `service / bare: median of ${options.rounds} alternating ${options.seconds} s rounds (lowest–highest); goal ≥ 50 %`,
          `${percent(median(loads.ratios))} % (${percent(Math.min(...loads.ratios))}–${percent(Math.max(...loads.ratios))} %)`,
        ],
      ],
    };
  } finally {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
  }
}
