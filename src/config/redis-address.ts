/**
 * A Redis Cluster as REDIS_URL names it: `redis+cluster://[user:password@]host:port,host:port,...`
 * (`rediss+cluster://` for TLS). The nodes are seeds only: the client learns the others from
 * the cluster. Credentials are written once, before the first node, and apply to every node; one
 * variable keeps the address and its secret together in one Kubernetes Secret.
 */
export interface RedisClusterAddress {
  nodes: { host: string; port: number }[];
  tls: boolean;
  username?: string;
  password?: string;
}

export type ClusterAddressParse = { address: RedisClusterAddress; problems: [] } | { address?: undefined; problems: string[] };

const CLUSTER_URL = /^(rediss?)\+cluster:\/\/([^/?#]*)(.*)$/is;
const DEFAULT_PORT = 6379;

export function isClusterUrl(url: string): boolean {
  return /^rediss?\+cluster:\/\//i.test(url);
}

/**
 * Parses a cluster URL; each problem is one line fit to follow "REDIS_URL " and never holds the
 * password (nor any other part of the value, which may hold it misplaced).
 */
export function parseClusterUrl(url: string): ClusterAddressParse {
  const match = CLUSTER_URL.exec(url);
  if (!match) return { problems: ['must start with redis+cluster:// or rediss+cluster://'] };
  const [, scheme, authority, rest] = match;
  const problems: string[] = [];
  if (rest !== '' && rest !== '/') {
    problems.push('must not have a path, query or fragment after the cluster nodes (a cluster has database 0 only)');
  }
  // The last "@" ends the credentials, as in any URL. A raw "@" before it most likely means
  // credentials repeated on each node, which would silently become part of the password.
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at) : undefined;
  if (userinfo?.includes('@')) {
    problems.push('must carry credentials once, before the first node (write "@" in a password as %40)');
  }
  const credentials = userinfo !== undefined ? parseCredentials(userinfo, problems) : {};
  const entries = authority.slice(at + 1).split(',');
  const nodes: RedisClusterAddress['nodes'] = [];
  entries.forEach((entry, index) => {
    const node = parseNode(entry.trim());
    if (node) nodes.push(node);
    else problems.push(`cluster node ${index + 1} of ${entries.length} must be host:port`);
  });
  if (problems.length > 0) return { problems };
  return { address: { nodes, tls: scheme.toLowerCase() === 'rediss', ...credentials }, problems: [] };
}

function parseCredentials(userinfo: string, problems: string[]): { username?: string; password?: string } {
  const colon = userinfo.indexOf(':');
  try {
    const username = decodeURIComponent(colon >= 0 ? userinfo.slice(0, colon) : userinfo);
    const password = colon >= 0 ? decodeURIComponent(userinfo.slice(colon + 1)) : '';
    // "user@" alone is a username without password; ":password@" the default user (as ioredis reads redis:// URLs).
    return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
  } catch {
    problems.push('has credentials that are not valid percent-encoding');
    return {};
  }
}

function parseNode(entry: string): { host: string; port: number } | undefined {
  if (entry === '' || /[/?#\s]/.test(entry)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(`redis://${entry}`);
  } catch {
    return undefined;
  }
  const port = parsed.port === '' ? DEFAULT_PORT : Number(parsed.port);
  if (!parsed.hostname || port < 1 || port > 65_535) return undefined;
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port };
}
