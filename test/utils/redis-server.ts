import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

export { freePort };

/** A redis-server of the test's own, so a test may stop, hang or restart it without touching others. */
export interface OwnRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  pause(): void;
  resume(): void;
  /** Stops the server for good and removes its data directory (persistent servers). */
  dispose(): Promise<void>;
}

export interface OwnRedisOptions {
  /**
   * Keep every acknowledged write on disk (AOF, fsync on every write) in a temporary directory, so
   * that a server killed with SIGKILL and started again on the same port comes back with its data.
   * Without it the server keeps nothing: a restart is an empty Redis.
   */
  persistent?: boolean;
}

export function pingRedis(port: number, timeoutMs = 300): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export async function startOwnRedis(options: OwnRedisOptions = {}): Promise<OwnRedis> {
  const port = await freePort();
  const dataDir = options.persistent ? mkdtempSync(path.join(os.tmpdir(), 'own-redis-')) : undefined;
  const persistence = dataDir ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dataDir] : ['--appendonly', 'no'];
  let child: ChildProcess | undefined;
  const start = async () => {
    // Already running: a second server could not bind the port, and the first would be orphaned.
    if (child && child.exitCode === null && child.signalCode === null) return;
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence], { stdio: 'ignore' });
    await waitUntil(() => pingRedis(port), 5000, `redis-server on port ${port}`);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGCONT');
      running.kill('SIGKILL');
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    dispose: async () => {
      await stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
