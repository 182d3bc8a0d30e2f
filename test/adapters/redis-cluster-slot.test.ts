import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient } from '../../src/adapters/redis/redis-client.js';
import { RedisIdempotencyStore } from '../../src/adapters/redis/redis-idempotency-store.js';
import { RedisOrderRepository } from '../../src/adapters/redis/redis-order-repository.js';
import { RedisPetRepository } from '../../src/adapters/redis/redis-pet-repository.js';
import { describeIdempotencyStoreContract } from '../contracts/idempotency-store-contract.js';
import { describeOrderRepositoryContract } from '../contracts/order-repository-contract.js';
import { describePetRepositoryContract } from '../contracts/pet-repository-contract.js';
import type { CreateStores } from '../contracts/stores-fixture.js';
import { deleteKeysUnder, freePort } from '../support/test-redis.js';

/*
 * A Cluster refuses a script whose keys hash to more than one slot (CROSSSLOT). One
 * cluster-enabled redis-server holding every slot answers every key itself, so the stores'
 * own client can use it, and it still checks each call's keys: every contract passing here
 * shows that each step of pets, orders and Idempotency-Key records is one script in one slot.
 */

const until = async (condition: () => Promise<boolean>, what: string): Promise<void> => {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await condition().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not within 10 s: ${what}`);
};

let redis: Redis;
let stop: () => Promise<void>;
let prefixes = 0;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-cluster-'));
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--save', '', '--appendonly', 'no'];
  const child = spawn('redis-server', [...args, '--cluster-config-file', join(dir, 'nodes.conf'), '--dir', dir], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  stop = async () => {
    child.kill('SIGKILL');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  await until(async () => {
    redis = await createRedisClient({ url: `redis://127.0.0.1:${port}`, commandTimeoutMs: 5_000 });
    return true;
  }, 'redis-server --cluster-enabled answers');
  await redis.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
  await until(async () => String(await redis.call('CLUSTER', 'INFO')).includes('cluster_state:ok'), 'cluster_state:ok');
});
afterAll(async () => {
  redis?.disconnect();
  await stop?.();
});

const clusterStores: CreateStores = async () => {
  const prefix = `cluster-test:${prefixes++}:`;
  return {
    pets: new RedisPetRepository(redis, prefix),
    orders: new RedisOrderRepository(redis, prefix),
    idempotency: new RedisIdempotencyStore(redis, prefix),
    cleanup: () => deleteKeysUnder(redis, prefix),
  };
};

describe('a Cluster node checks the slot of every call', () => {
  it('refuses a script over keys of two slots', async () => {
    await expect(redis.eval('return 1', 2, '{a}:x', '{b}:y')).rejects.toThrow(/CROSSSLOT/);
  });
});

describePetRepositoryContract('RedisPetRepository on a Cluster node', clusterStores, { numRuns: 20 });
describeOrderRepositoryContract('RedisOrderRepository on a Cluster node', clusterStores, { numRuns: 20 });
describeIdempotencyStoreContract('RedisIdempotencyStore on a Cluster node', clusterStores);
