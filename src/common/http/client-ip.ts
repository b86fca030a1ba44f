import { isIPv4, isIPv6 } from 'node:net';

/**
 * The network a per-IP limit counts a client by: an IPv4 address as it is (IPv4-mapped IPv6
 * included), an IPv6 address by its /48, the block one site is usually given: a client holding it
 * could otherwise step around a limit through 65 536 /64s by changing addresses.
 */
export function clientNetwork(ip: string): string {
  const address = ip.split('%', 1)[0].toLowerCase();
  if (isIPv4(address) || !isIPv6(address)) return address || 'unknown';
  const groups = hextets(address);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  }
  return `${groups
    .slice(0, 3)
    .map((group) => group.toString(16))
    .join(':')}::/48`;
}

/** The eight 16-bit groups of a valid IPv6 address ("::" expanded, a dotted IPv4 tail converted). */
function hextets(address: string): number[] {
  let text = address;
  let tail: number[] = [];
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    tail = [(a << 8) | b, (c << 8) | d];
    text = text.slice(0, dotted.index);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const parse = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const [head, rest] = text.split('::');
  if (rest === undefined) return [...parse(head), ...tail];
  const left = parse(head);
  const right = [...parse(rest), ...tail];
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
