import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import type { RedisNodeAddress } from '../../src/adapters/redis/redis-cluster-client.js';
import { freePort, startRedisServer, type RedisServerProcess } from './test-redis.js';
import { needsBeyondUnitTier } from './test-tier.js';

const run = promisify(execFile);

/** A local Redis Cluster of three masters, no replicas, each a redis-server process of its own. */
export interface TestCluster {
  /** The masters' ports, in the order they were started. */
  readonly ports: readonly number[];
  /** `127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3`, as REDIS_CLUSTER_NODES takes it. */
  readonly nodesVariable: string;
  /** A plain connection to one node (no redirections followed): CLUSTER commands, SCAN of its own keys. */
  node(port: number): Redis;
  /** Kills a master (SIGKILL, as a crash would); its slots go unserved until `restart`. */
  kill(port: number): Promise<void>;
  /** Starts a killed master again on its port with its nodes.conf (its slots, no data), and waits for `cluster_state:ok`. */
  restart(port: number): Promise<void>;
  /** Kills every node and deletes their directory. */
  stop(): Promise<void>;
}

const MASTERS = 3;
const READY_WITHIN_MS = 10_000;
/** Half of vitest's hookTimeout (60 s), where the clusters are started. */
const CREATE_WITHIN_MS = 30_000;

/**
 * Starts three `redis-server --cluster-enabled yes` on free ports, persisting nothing, joins
 * them with `redis-cli --cluster create` (the 16384 slots in three ranges) and resolves once
 * every node says `cluster_state:ok`. Takes a second or two.
 */
export const startTestCluster = async (): Promise<TestCluster> => {
  needsBeyondUnitTier('a Redis Cluster');
  const dir = await mkdtemp(join(tmpdir(), 'petstore-cluster-'));
  const servers = new Map<number, RedisServerProcess>();
  const connections = new Map<number, Redis>();
  // Each node's config file is named after its port, so a restart finds its own.
  const start = async (port: number): Promise<void> => {
    servers.set(port, await startRedisServer(port, ['--cluster-enabled', 'yes', '--dir', dir, '--cluster-config-file', `nodes-${port}.conf`]));
  };
  const node = (port: number): Redis => {
    let connection = connections.get(port);
    if (connection === undefined) {
      connection = new Redis({ host: '127.0.0.1', port, lazyConnect: false, maxRetriesPerRequest: 1, retryStrategy: () => 200 });
      connection.on('error', () => {});
      connections.set(port, connection);
    }
    return connection;
  };
  const stop = async (): Promise<void> => {
    for (const connection of connections.values()) connection.disconnect();
    await Promise.all([...servers.values()].map((server) => server.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const ports: number[] = [];
    while (ports.length < MASTERS) {
      const port = await freePort();
      if (!ports.includes(port)) ports.push(port);
    }
    await Promise.all(ports.map(start));
    const addresses = ports.map((port) => `127.0.0.1:${port}`);
    // redis-cli waits for the nodes to agree by gossip, checking once a second: on a busy machine
    // that passed 10 s once (a clean-clone npm test, 2026-11-26), so it gets the hook's half.
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], { timeout: CREATE_WITHIN_MS }).catch(
      (error: { stdout?: string; stderr?: string; signal?: string }) => {
        throw new Error(`redis-cli --cluster create failed${error.signal === undefined || error.signal === null ? '' : ` (${error.signal} after ${CREATE_WITHIN_MS} ms)`}:\n${error.stdout ?? ''}${error.stderr ?? ''}`, { cause: error });
      },
    );
    await Promise.all(ports.map((port) => clusterOk(node(port))));
    return {
      ports,
      nodesVariable: addresses.join(','),
      node,
      kill: async (port) => {
        await servers.get(port)?.stop();
        servers.delete(port);
      },
      restart: async (port) => {
        await start(port);
        await Promise.all(ports.map((each) => clusterOk(node(each))));
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};

/** Resolves once the node answers `cluster_state:ok`, i.e. it sees every slot served. */
const clusterOk = async (node: Redis): Promise<void> => {
  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    const info = await node.cluster('INFO').catch(() => '');
    if (String(info).includes('cluster_state:ok')) return;
    if (Date.now() > deadline) throw new Error(`cluster_state not ok within ${READY_WITHIN_MS} ms on ${node.options.port}:\n${String(info)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** The masters as REDIS_CLUSTER_NODES names them, for createRedisClusterClient. */
export const nodesOf = (cluster: TestCluster): RedisNodeAddress[] => cluster.ports.map((port) => ({ host: '127.0.0.1', port }));
