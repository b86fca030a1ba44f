import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { freePort, pingRedis, waitUntil } from './redis-server';

const run = promisify(execFile);

/** A throw-away Redis Cluster of three masters (no replicas) on loopback ports. */
export interface OwnRedisCluster {
  /** The service's form: redis+cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3 */
  url: string;
  ports: number[];
  /** A plain connection to each master, e.g. for CLUSTER KEYSLOT or reading keys directly. */
  node(port: number): Redis;
  /** The port of the master serving this key's slot. */
  masterOf(key: string): Promise<number>;
  /** Hangs one master (SIGSTOP) or lets it go on (SIGCONT). */
  pause(port: number): void;
  resume(port: number): void;
  stop(): Promise<void>;
}

const MASTERS = 3;

export async function startRedisCluster(): Promise<OwnRedisCluster> {
  const dir = await mkdtemp(path.join(tmpdir(), 'redis-cluster-'));
  const children = new Map<number, ChildProcess>();
  const clients = new Map<number, Redis>();
  const ports: number[] = [];
  const stop = async () => {
    for (const client of clients.values()) client.disconnect();
    clients.clear();
    const running = [...children.values()];
    children.clear();
    await Promise.all(running.map(kill));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < MASTERS; i += 1) {
      const port = await freePort();
      // The bus port is named too: port + 10000 (the default) may be past 65535 for an ephemeral port.
      const busPort = await freePort();
      ports.push(port);
      children.set(
        port,
        spawn(
          'redis-server',
          [
            '--port',
            String(port),
            '--cluster-enabled',
            'yes',
            '--cluster-port',
            String(busPort),
            '--cluster-config-file',
            path.join(dir, `nodes-${port}.conf`),
            '--cluster-node-timeout',
            '2000',
            '--save',
            '',
            '--appendonly',
            'no',
            '--bind',
            '127.0.0.1',
            '--dir',
            dir,
            '--logfile',
            path.join(dir, `redis-${port}.log`),
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    for (const port of ports) await waitUntil(() => pingRedis(port), 5_000, `cluster node on port ${port}`);
    await run(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'],
      {
        timeout: 20_000,
      },
    );
    const node = (port: number) => {
      let client = clients.get(port);
      if (!client) {
        client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
        clients.set(port, client);
      }
      return client;
    };
    for (const port of ports) {
      await waitUntil(
        async () => String(await node(port).cluster('INFO')).includes('cluster_state:ok'),
        10_000,
        `cluster_state:ok on port ${port}`,
      );
    }
    const masterOf = async (key: string) => {
      const slot = Number(await node(ports[0]).call('CLUSTER', 'KEYSLOT', key));
      const ranges = (await node(ports[0]).call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
      const owner = ranges.find(([first, last]) => slot >= first && slot <= last);
      if (!owner) throw new Error(`no master serves slot ${slot}`);
      return owner[2][1];
    };
    return {
      url: `redis+cluster://${ports.map((port) => `127.0.0.1:${port}`).join(',')}`,
      ports,
      node,
      masterOf,
      pause: (port) => children.get(port)?.kill('SIGSTOP'),
      resume: (port) => children.get(port)?.kill('SIGCONT'),
      stop,
    };
  } catch (error) {
    const logs = await Promise.all(ports.map((port) => readFile(path.join(dir, `redis-${port}.log`), 'utf8').catch(() => '')));
    await stop();
    throw new Error(
      `the Redis Cluster did not start: ${error instanceof Error ? error.message : String(error)}\n${logs.join('\n').slice(-2_000)}`,
    );
  }
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  });
}
