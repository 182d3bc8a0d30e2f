import type { Cluster } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { createRedisClusterClient } from '../../src/adapters/redis/redis-cluster-client.js';
import { nodesOf, startTestCluster, type TestCluster } from './test-cluster.js';

export interface TestClusterFile {
  readonly cluster: TestCluster;
  /** The file's fail-fast Cluster client, as the service creates it. */
  readonly redis: Cluster;
  /** A prefix unused so far: a fresh, empty store for each fixture. The whole Cluster goes at the end of the file. */
  freshPrefix(): string;
}

/** For one test file: a local Cluster and one client, started before its tests and stopped after them. */
export const useTestCluster = (): TestClusterFile => {
  let cluster: TestCluster | undefined;
  let client: Cluster | undefined;
  let prefixes = 0;
  beforeAll(async () => {
    cluster = await startTestCluster();
    // These files test the stores, not outages: a loaded machine must not fail them by a slow reply.
    client = await createRedisClusterClient({ nodes: nodesOf(cluster), commandTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });
  const acquired = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useTestCluster: used outside the tests of its file');
    return value;
  };
  return {
    get cluster() {
      return acquired(cluster);
    },
    get redis() {
      return acquired(client);
    },
    freshPrefix: () => `cluster-test:${prefixes++}:`,
  };
};
