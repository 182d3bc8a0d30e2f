import { Redis } from 'ioredis';
import { startPetStore } from '../../src/app/start-pet-store.js';
import { describeRetriesThroughFreeze, FREEZE_API_KEYS, type StoreFreezer } from '../support/frozen-store-retries.js';
import { startTestCluster } from '../support/test-cluster.js';
import { startRedisServer } from '../support/test-redis.js';

const PREFIX = 'idem-freeze:';

/** A throwaway Redis (or Cluster) of this file: what the service is pointed at, its nodes by port and their redis-server pids. */
interface FrozenTarget {
  readonly environ: Readonly<Record<string, string>>;
  /** A plain connection to each node, by its port. */
  readonly nodes: ReadonlyMap<number, Redis>;
  /** The redis-server process of each node, by its port. */
  readonly pids: ReadonlyMap<number, number>;
  stop(): Promise<void>;
}

const pidOf = async (node: Redis): Promise<number> => Number(/process_id:(\d+)/.exec(await node.info('server'))?.[1]);

const TARGETS: readonly (readonly [string, () => Promise<FrozenTarget>])[] = [
  [
    'Redis',
    async () => {
      const server = await startRedisServer();
      const node = new Redis(server.url);
      return {
        environ: { REDIS_URL: server.url },
        nodes: new Map([[server.port, node]]),
        pids: new Map([[server.port, server.pid]]),
        stop: async () => {
          node.disconnect();
          await server.stop();
        },
      };
    },
  ],
  [
    'a Redis Cluster',
    async () => {
      const cluster = await startTestCluster();
      const nodes = new Map(cluster.ports.map((port) => [port, cluster.node(port)]));
      const pids = new Map(await Promise.all(cluster.ports.map(async (port) => [port, await pidOf(cluster.node(port))] as const)));
      return { environ: { REDIS_CLUSTER_NODES: cluster.nodesVariable }, nodes, pids, stop: () => cluster.stop() };
    },
  ],
];

/**
 * Freezes the node a matching command is sent to, just before ioredis writes it: the command
 * then waits unread in the frozen Redis's socket, and runs once it is thawed, as a command
 * whose reply was lost. The service runs in this process, so its connections are ioredis's.
 */
function redisFreezer(target: FrozenTarget): StoreFreezer & { restore(): void } {
  const send = Redis.prototype.sendCommand;
  let armed: ((text: string) => boolean) | undefined;
  let fired = false;
  const frozen = new Set<number>();
  Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<typeof send>) {
    const [command] = args;
    if (armed !== undefined && armed([command.name, ...command.args].map(String).join(' '))) {
      armed = undefined;
      const pid = target.pids.get(Number(this.options.port));
      if (pid !== undefined) {
        process.kill(pid, 'SIGSTOP');
        frozen.add(pid);
        fired = true;
      }
    }
    return send.apply(this, args);
  };
  return {
    arm: (matches) => {
      armed = matches;
      fired = false;
    },
    fired: () => fired,
    release: () => {
      armed = undefined;
      for (const pid of frozen) process.kill(pid, 'SIGCONT');
      frozen.clear();
    },
    markEnd: async (idempotencyKey) => {
      for (const node of target.nodes.values()) {
        for (const name of await node.keys(`${PREFIX}{pets}:idempotency:*:${idempotencyKey}`)) {
          // A completed record is no mark.
          if ((await node.hexists(name, 'k')) === 1) continue;
          const leftMs = await node.pttl(name);
          if (leftMs > 0) return Date.now() + leftMs;
        }
      }
      return undefined;
    },
    restore: () => {
      Redis.prototype.sendCommand = send;
    },
  };
}

for (const [name, startTarget] of TARGETS) {
  describeRetriesThroughFreeze(name, async () => {
    const target = await startTarget();
    const freezer = redisFreezer(target);
    const store = await startPetStore(
      {
        PETSTORE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: '0',
        PETSTORE_STORE: 'redis',
        PETSTORE_REDIS_PREFIX: PREFIX,
        PETSTORE_API_KEYS: FREEZE_API_KEYS,
        PETSTORE_LOG_LEVEL: 'silent',
        ...target.environ,
      },
      {},
      { serveAdmin: false },
    );
    return {
      baseUrl: store.baseUrl,
      freezer,
      close: async () => {
        freezer.restore();
        await store.close(0, 0);
        await target.stop();
      },
    };
  });
}
