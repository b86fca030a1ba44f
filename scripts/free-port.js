'use strict';
/*
 * A free loopback port for a server a test starts. Not `listen(0)`: that port comes from the kernel's
 * ephemeral range, where any outgoing connection of a parallel test may take it between our check and
 * the server's listen (EADDRINUSE). Below that range only a listener can hold a port.
 */
const fs = require('node:fs');
const net = require('node:net');

function ephemeralRangeStart() {
  try {
    const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return Number.isInteger(low) && low > 12000 ? low : 32768;
  } catch {
    return 32768;
  }
}

function canListen(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function freePort() {
  const high = ephemeralRangeStart() - 1;
  const low = 10000;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free loopback port between ${low} and ${high}`);
}

module.exports = { freePort };
