import net from 'node:net';

/**
 * The address the replicas know Redis by, as a Sentinel-aware client or a cloud endpoint gives it:
 * a TCP relay to whichever server is primary now. A failover points it at the promoted replica and
 * cuts every open connection, so the service reconnects to the new primary.
 */
export class RedisProxy {
  private readonly sockets = new Set<net.Socket>();
  private server?: net.Server;
  port = 0;

  constructor(private targetPort: number) {}

  async start(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect({ host: '127.0.0.1', port: this.targetPort });
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** From now on to the server on `port`; every open connection is cut. */
  pointAt(port: number): void {
    this.targetPort = port;
    for (const socket of this.sockets) socket.destroy();
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
