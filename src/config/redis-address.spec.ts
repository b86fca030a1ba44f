import { isClusterUrl, parseClusterUrl } from './redis-address';

describe('Redis Cluster URLs', () => {
  it('tells cluster URLs from single-server ones', () => {
    expect(isClusterUrl('redis+cluster://a:1')).toBe(true);
    expect(isClusterUrl('REDISS+CLUSTER://a:1')).toBe(true);
    expect(isClusterUrl('redis://a:1')).toBe(false);
    expect(isClusterUrl('rediss://a:1')).toBe(false);
  });

  it('reads the seed nodes, TLS and the credentials shared by every node', () => {
    expect(parseClusterUrl('rediss+cluster://app:p%40ss,w@node-a.example.com:6380,10.0.0.2:7000,[::1]:7001/')).toEqual({
      address: {
        nodes: [
          { host: 'node-a.example.com', port: 6380 },
          { host: '10.0.0.2', port: 7000 },
          { host: '::1', port: 7001 },
        ],
        tls: true,
        username: 'app',
        password: 'p@ss,w',
      },
      problems: [],
    });
    expect(parseClusterUrl('redis+cluster://:secret@a:7000, b')).toEqual({
      address: {
        nodes: [
          { host: 'a', port: 7000 },
          { host: 'b', port: 6379 },
        ],
        tls: false,
        password: 'secret',
      },
      problems: [],
    });
    expect(parseClusterUrl('redis+cluster://a:7000').address).toEqual({ nodes: [{ host: 'a', port: 7000 }], tls: false });
  });

  it('names every problem on its own line, never the value', () => {
    const { address, problems } = parseClusterUrl('redis+cluster://u:top-secret@a:0,,d:x?tls=1');
    expect(address).toBeUndefined();
    expect(problems).toEqual([
      'must not have a path, query or fragment after the cluster nodes (a cluster has database 0 only)',
      'cluster node 1 of 3 must be host:port',
      'cluster node 2 of 3 must be host:port',
      'cluster node 3 of 3 must be host:port',
    ]);
    expect(problems.join('\n')).not.toContain('top-secret');
    expect(parseClusterUrl('redis+cluster://u:top-secret@a:1,u:top-secret@b:2').problems).toEqual([
      'must carry credentials once, before the first node (write "@" in a password as %40)',
    ]);
    expect(parseClusterUrl('redis+cluster://u:%E0%A4%A@a:1').problems).toEqual(['has credentials that are not valid percent-encoding']);
    expect(parseClusterUrl('redis+cluster://').problems).toEqual(['cluster node 1 of 1 must be host:port']);
  });
});
