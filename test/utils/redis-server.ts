import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
  /** Killed, its data removed, and started again: a Redis that comes back empty. */
  restartEmpty(): Promise<void>;
  /** Replicates the server on `primaryPort` from now on (REPLICAOF), or none (null: promoted to primary). */
  follow(primaryPort: number | null): Promise<void>;
}

export interface OwnRedisOptions {
  /**
   * Keep every acknowledged write on disk (AOF, fsync on every write) in a temporary directory, so
   * that a server killed with SIGKILL and started again on the same port comes back with its data.
   * Without it the server keeps nothing: a restart is an empty Redis.
   */
  persistent?: boolean;
  /** A replica of the server on this port (`--replicaof`): started once it has synchronised with it. */
  replicaOf?: number;
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

/** One command in Redis's inline protocol, answered with the reply's first chunk (a short reply, whole). */
function redisCommand(port: number, words: string[], timeoutMs = 2_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`${words.join(' ')}: no answer from ${port}`));
    });
    socket.once('error', reject);
    socket.once('connect', () => socket.write(`${words.join(' ')}\r\n`));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString());
    });
  });
}

/** Sets one of a test server's settings at run time (CONFIG SET), as an operator might. */
export async function configSet(port: number, name: string, value: string): Promise<void> {
  const reply = await redisCommand(port, ['CONFIG', 'SET', name, value]);
  if (!reply.startsWith('+OK')) throw new Error(`CONFIG SET ${name} ${value} answered ${reply.trim()}`);
}

/** Whether a replica's link to its primary is up (INFO replication). */
function replicationUp(port: number): Promise<boolean> {
  return redisCommand(port, ['INFO', 'replication'], 300).then(
    (reply) => reply.includes('master_link_status:up'),
    () => false,
  );
}

/** The commands a Redis runs, as MONITOR shows them to a connection of their own. */
export interface RedisWatch {
  /** Each command's words, in the order Redis ran them; commands run inside a script are left out. */
  commands: string[][];
  stop(): void;
}

/**
 * Watches a Redis with MONITOR on a plain socket: a client library's MONITOR can take another
 * connection's command for its own reply when traffic arrives before its `OK`.
 */
export function watchRedis(url: string): Promise<RedisWatch> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const commands: string[][] = [];
    let pending = '';
    let started = false;
    socket.once('error', reject);
    socket.once('connect', () => socket.write('MONITOR\r\n'));
    socket.on('data', (data) => {
      pending += data.toString('latin1');
      const lines = pending.split('\r\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!started) {
          if (line !== '+OK') return reject(new Error(`MONITOR answered ${line}`));
          started = true;
          resolve({ commands, stop: () => socket.destroy() });
          continue;
        }
        // "+<time> [<db> <source>] "word" "word"…": a script's commands name `lua` as their source.
        const source = /^\+\S+ \[\d+ ([^\]]+)\] /.exec(line);
        if (!source || source[1] === 'lua') continue;
        commands.push(monitoredWords(line.slice(source[0].length)));
      }
    });
  });
}

/** The quoted words of a MONITOR line, their escapes (\\, \", \xHH, \n…) undone. */
function monitoredWords(text: string): string[] {
  const escapes: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' };
  return [...text.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map(([, word]) =>
    word.replace(/\\(x[0-9a-f]{2}|.)/g, (_, escaped: string) =>
      escaped.length === 3 ? String.fromCharCode(parseInt(escaped.slice(1), 16)) : (escapes[escaped] ?? escaped),
    ),
  );
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
  // Its own directory even without persistence: a primary writes a snapshot there to sync a replica.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'own-redis-'));
  const persistence = options.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  let replicaOf = options.replicaOf;
  let child: ChildProcess | undefined;
  const start = async () => {
    // Already running: a second server could not bind the port, and the first would be orphaned.
    if (child && child.exitCode === null && child.signalCode === null) return;
    const replication = replicaOf ? ['--replicaof', '127.0.0.1', String(replicaOf)] : [];
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dataDir, ...persistence, ...replication],
      {
        stdio: 'ignore',
      },
    );
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
  if (replicaOf) await waitUntil(() => replicationUp(port), 10_000, `the replica on ${port} to synchronise`);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    dispose: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
    restartEmpty: async () => {
      await stop();
      for (const entry of readdirSync(dataDir)) rmSync(path.join(dataDir, entry), { recursive: true, force: true });
      await start();
    },
    follow: async (primaryPort) => {
      replicaOf = primaryPort ?? undefined;
      await redisCommand(port, primaryPort === null ? ['REPLICAOF', 'NO', 'ONE'] : ['REPLICAOF', '127.0.0.1', String(primaryPort)]);
      if (primaryPort !== null) await waitUntil(() => replicationUp(port), 10_000, `the replica on ${port} to synchronise`);
    },
  };
}
