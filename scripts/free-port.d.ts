/** A free loopback port below the kernel's ephemeral range (scripts/free-port.js). */
export function freePort(): Promise<number>;
