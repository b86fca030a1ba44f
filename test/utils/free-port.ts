import { readFileSync } from 'node:fs';
import net from 'node:net';

/*
 * A free loopback port for a server a test starts. Not `listen(0)`: that port comes from the kernel's
 * ephemeral range, where any outgoing connection of a parallel test may take it between our check and
 * the server's listen (EADDRINUSE). Below that range only a listener can hold a port.
 */
function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return Number.isInteger(low) && low > 12_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  const high = ephemeralRangeStart() - 1;
  const low = 10_000;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free loopback port between ${low} and ${high}`);
}
