import { ChildProcess, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { CreateReservationInput, SandboxOptions, SandboxUrls } from '../sandbox/types';
import type { SandboxRequest } from './sandbox-process';

/** The compiled tree (dist/), where the bench itself runs from. */
export const DIST = path.resolve(__dirname, '..');

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function waitForOk(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(url).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${url} did not become ready`);
}

export function rssMb(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** CPU time (user + system) a process has used so far, in ms (Linux clock ticks of 10 ms). */
export function cpuMs(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** From spawn to /health/ready answering 200. */
  readyMs: number;
  stop(): Promise<void>;
}

/** The node flags `npm start` and the Dockerfile start the service with (the young generation's size: README, Performance). */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=16'];

/** The built service (`node dist/src/main.js`, as `npm start` runs it) with this environment. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, path.join(DIST, 'src/main.js')], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', LOG_PRETTY: 'false', ...env, PORT: String(port) },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForOk(`${url}/health/ready`, 20_000);
  return {
    url,
    child,
    readyMs: performance.now() - started,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface SandboxProcess {
  urls: SandboxUrls;
  createReservation(input: CreateReservationInput): Promise<{ reservationId: string; guestId: string }>;
  /** Open API calls seen so far (token and tokenization requests not counted). */
  openApiCalls(): Promise<number>;
  /** Where the platform's webhooks go (signed with the options' `webhookSecret`); none while undefined. */
  setWebhookTarget(url: string | undefined): Promise<void>;
  /** Resolves once every webhook sent so far was answered. */
  webhooksSettled(): Promise<void>;
  stop(): Promise<void>;
}

/** The sandbox in its own process (bench/sandbox-process.ts), steered over IPC. */
export function startSandboxProcess(options: SandboxOptions): Promise<SandboxProcess> {
  const child = fork(path.join(DIST, 'bench/sandbox-process.js'), [], {
    env: { ...process.env, BENCH_SANDBOX_OPTIONS: JSON.stringify(options) },
    stdio: 'ignore',
  });
  const waiting = new Map<number, (result: unknown) => void>();
  let next = 0;
  const ask = <T>(request: SandboxRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never): Promise<T> =>
    new Promise((resolve) => {
      next += 1;
      waiting.set(next, resolve as (result: unknown) => void);
      child.send({ ...request, id: next });
    });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the sandbox process exited (${code})`)));
    child.on('message', (message: { ready?: SandboxUrls; id?: number; result?: unknown }) => {
      if (message.ready) {
        resolve({
          urls: message.ready,
          createReservation: (input) => ask({ op: 'createReservation', input }),
          openApiCalls: () => ask({ op: 'openApiCalls' }),
          setWebhookTarget: (url) => ask({ op: 'setWebhookTarget', url }),
          webhooksSettled: () => ask({ op: 'webhooksSettled' }),
          stop: () =>
            new Promise((stopped) => {
              child.removeAllListeners('exit');
              child.once('exit', () => stopped());
              child.disconnect();
            }),
        });
        return;
      }
      if (message.id !== undefined) {
        waiting.get(message.id)?.(message.result);
        waiting.delete(message.id);
      }
    });
  });
}
