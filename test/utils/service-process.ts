import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
/** The built service, as `npm start` runs it (scripts/test.js builds before the tests run). */
export const BUILT_MAIN = path.join(ROOT, 'dist/src/main.js');

export interface ServiceProcess {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  /** Resolves with the first stdout JSON line that matches; rejects when the process exits first. */
  waitForLog(match: (entry: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/**
 * Runs a Node script as its own process with exactly the given environment (plus PATH, and the
 * platform surface the suite runs on, as test-config.ts passes it to in-process apps).
 */
export function spawnService(script: string, env: Record<string, string>): ServiceProcess {
  const surface = process.env.GUESTY_API_SURFACE;
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...(surface ? { GUESTY_API_SURFACE: surface } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const listeners = new Set<(line: string) => void>();
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      stdout.push(line);
      for (const listener of listeners) listener(line);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => stderr.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const waitForLog: ServiceProcess['waitForLog'] = (match, timeoutMs = 15_000) =>
    new Promise((resolve, reject) => {
      const parse = (line: string): Record<string, unknown> | null => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          return null;
        }
      };
      const seen = stdout.map(parse).find((entry) => entry && match(entry));
      if (seen) return resolve(seen);
      const timer = setTimeout(
        () => finish(new Error(`no matching log line within ${timeoutMs} ms; stderr: ${stderr.join(' | ')}`)),
        timeoutMs,
      );
      const listener = (line: string) => {
        const entry = parse(line);
        if (entry && match(entry)) finish(null, entry);
      };
      const finish = (error: Error | null, entry?: Record<string, unknown>) => {
        clearTimeout(timer);
        listeners.delete(listener);
        if (error) reject(error);
        else resolve(entry!);
      };
      listeners.add(listener);
      void exited.then((code) => finish(new Error(`process exited with ${code} first; stderr: ${stderr.join(' | ')}`)));
    });

  return { child, stdout, stderr, waitForLog, exited };
}

/**
 * Another replica of a test world as a process of its own (to be killed with SIGKILL), on `redisUrl`,
 * once it listens: its process and its address.
 */
export async function spawnReplica(env: Record<string, string>, redisUrl: string): Promise<ServiceProcess & { url: string }> {
  const service = spawnService(BUILT_MAIN, {
    ...env,
    REDIS_URL: redisUrl,
    PORT: '0',
    LOG_LEVEL: 'info',
    LOG_PRETTY: 'false',
    NODE_ENV: 'test',
  });
  const listening = await service.waitForLog((entry) => entry.msg === 'booking checkout service listening', 20_000);
  return { ...service, url: `http://127.0.0.1:${listening.port as number}` };
}
