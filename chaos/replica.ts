import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { waitForOk } from '../bench/processes';

/**
 * One replica of the built service as its own process, on a port it keeps across restarts (the
 * balancer's address for it). The campaign freezes it (SIGSTOP: a GC or VM pause, CPU throttling),
 * thaws it, and kills it at any instruction (SIGKILL), then starts it again.
 */
export class Replica {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private frozen = false;

  constructor(
    readonly index: number,
    readonly port: number,
    private readonly mainScript: string,
    private readonly env: Record<string, string>,
    private readonly log?: WriteStream,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.child) return;
    const child = spawn(process.execPath, [this.mainScript], {
      env: { PATH: process.env.PATH ?? '', ...this.env, PORT: String(this.port) },
      stdio: ['ignore', this.log ? 'pipe' : 'ignore', 'pipe'],
    });
    let lastWords = '';
    child.stderr?.on('data', (chunk: Buffer) => (lastWords = `${lastWords}${chunk.toString('utf8')}`.slice(-2_000)));
    if (this.log) {
      child.stdout?.pipe(this.log, { end: false });
      child.stderr?.pipe(this.log, { end: false });
    }
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    void this.exited.then(() => {
      if (this.child === child) this.child = undefined;
    });
    // A loaded machine starts a Nest app slowly; a replica restarted mid-campaign is awaited as long.
    const died = this.exited.then(() => {
      throw new Error(`replica ${this.index} exited before it was ready: ${lastWords.trim()}`);
    });
    // Once ready, its later death (a kill the campaign asked for) is no error here.
    died.catch(() => undefined);
    await Promise.race([waitForOk(`${this.url}/health/ready`, 120_000), died]);
  }

  freeze(): void {
    this.frozen = this.child?.kill('SIGSTOP') ?? false;
  }

  thaw(): void {
    if (this.frozen) this.child?.kill('SIGCONT');
    this.frozen = false;
  }

  /** SIGKILL: no drain, no goodbye; whatever it was doing stops at that instruction. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGKILL');
    this.frozen = false;
    await this.exited;
  }

  /** Thawed and stopped for good, letting it drain (the end of a campaign). */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.thaw();
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 15_000))),
    ]);
    clearTimeout(timer);
    if (!stopped) await this.kill();
  }
}

export function replicaLog(path: string | undefined): WriteStream | undefined {
  return path ? createWriteStream(path, { flags: 'a' }) : undefined;
}
