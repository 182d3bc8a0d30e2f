import { describe, expect, it } from 'vitest';
import { loadConfig, type Environ } from '../../src/app/config/config.js';

const clusterOf = (environ: Environ) => {
  const loaded = loadConfig(environ);
  return loaded.ok ? loaded.value.redisCluster : loaded.error;
};

describe('REDIS_CLUSTER_NODES', () => {
  it('is unset by default: one Redis at REDIS_URL', () => {
    expect(clusterOf({})).toBeUndefined();
    expect(clusterOf({ REDIS_CLUSTER_NODES: '' })).toBeUndefined();
  });

  it('reads a comma-separated list of host:port, IPv6 hosts in brackets, with REDIS_PASSWORD for every node', () => {
    expect(clusterOf({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b.internal:7001,[::1]:7002' })).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-b.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
    expect(clusterOf({ REDIS_CLUSTER_NODES: '10.0.0.1:7000', REDIS_PASSWORD: 's3cret' })).toEqual({
      nodes: [{ host: '10.0.0.1', port: 7000 }],
      password: 's3cret',
    });
  });

  it('names the entry that is not host:port', () => {
    const expected = (entry: string): string[] => [
      `REDIS_CLUSTER_NODES="10.0.0.1:7000,${entry}": ${JSON.stringify(entry)} is not host:port; expected a comma-separated list of nodes such as 10.0.0.1:7000,10.0.0.2:7000`,
    ];
    for (const entry of ['10.0.0.2', 'redis://10.0.0.2:7000', '10.0.0.2:0', '10.0.0.2:65536', '::1:7000', '', 'a b:7000']) {
      expect(clusterOf({ REDIS_CLUSTER_NODES: `10.0.0.1:7000,${entry}` })).toEqual(expected(entry));
    }
  });

  it('refuses REDIS_URL beside it, and REDIS_PASSWORD without it', () => {
    expect(clusterOf({ REDIS_CLUSTER_NODES: '10.0.0.1:7000', REDIS_URL: 'redis://10.0.0.1:6379' })).toEqual([
      'REDIS_URL and REDIS_CLUSTER_NODES are both set: set REDIS_URL for one Redis, or REDIS_CLUSTER_NODES for a Redis Cluster',
    ]);
    expect(clusterOf({ REDIS_URL: 'redis://10.0.0.1:6379', REDIS_PASSWORD: 's3cret' })).toEqual([
      'REDIS_PASSWORD is for the nodes of REDIS_CLUSTER_NODES; the password of one Redis goes in REDIS_URL (redis://:PASSWORD@host:6379)',
    ]);
  });
});
