import { describe, expect, it } from 'vitest';
import { RedisApiKeyRegistry } from '../../src/adapters/redis/redis-api-key-registry.js';
import { RedisIdempotencyStore } from '../../src/adapters/redis/redis-idempotency-store.js';
import { RedisOrderRepository } from '../../src/adapters/redis/redis-order-repository.js';
import { RedisPetRepository } from '../../src/adapters/redis/redis-pet-repository.js';
import { RedisQuotaStore } from '../../src/adapters/redis/redis-quota-store.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import type { QuotaPolicy } from '../../src/domain/quota/quota-rule.js';
import { describeApiKeyRegistryContract, describeKeyAdminContract } from '../contracts/api-key-registry-contract.js';
import { describeIdempotencyStoreContract } from '../contracts/idempotency-store-contract.js';
import { describeOrderRepositoryContract } from '../contracts/order-repository-contract.js';
import { describePetRepositoryContract } from '../contracts/pet-repository-contract.js';
import { describeQuotaStoreContract } from '../contracts/quota-store-contract.js';
import { CONTRACT_LEASE_MS, describeConcurrencySlotsContract } from '../contracts/concurrency-slots-contract.js';
import { RedisConcurrencySlots } from '../../src/adapters/redis/redis-concurrency-slots.js';
import { RedisCreditLedger } from '../../src/adapters/redis/redis-credit-ledger.js';
import { describeCreditLedgerContract } from '../contracts/credit-ledger-contract.js';
import { claimOf, type CreateStores } from '../contracts/stores-fixture.js';
import { useTestCluster } from '../support/use-test-cluster.js';
import { runs } from '../support/property-runs.js';

/*
 * Every Redis adapter on a local Cluster of three masters, through the service's Cluster
 * client. A node refuses a call whose keys hash to more than one slot (CROSSSLOT), and the
 * client sends each call to the master of its first key's slot: each contract passing here
 * shows every call of the adapter to be one slot's, wherever that slot is. Each fixture takes
 * a fresh prefix; the Cluster and its keys go at the end of the file.
 */
const shared = useTestCluster();
const noCleanup = async (): Promise<void> => {};

const clusterStores: CreateStores = async () => {
  const prefix = shared.freshPrefix();
  return {
    pets: new RedisPetRepository(shared.redis, prefix),
    orders: new RedisOrderRepository(shared.redis, prefix),
    idempotency: new RedisIdempotencyStore(shared.redis, prefix),
    cleanup: noCleanup,
  };
};

describeQuotaStoreContract('redis cluster', async (clock) => ({
  store: new RedisQuotaStore(shared.redis, { prefix: shared.freshPrefix(), time: clock }),
  cleanup: noCleanup,
}));
describeConcurrencySlotsContract('redis cluster', async (clock) => ({
  slots: new RedisConcurrencySlots(shared.redis, { prefix: shared.freshPrefix(), leaseMs: CONTRACT_LEASE_MS, time: clock }),
  cleanup: noCleanup,
}));
describeCreditLedgerContract('redis cluster', async () => ({ ledger: new RedisCreditLedger(shared.redis, shared.freshPrefix()), cleanup: noCleanup }));
describePetRepositoryContract('RedisPetRepository on a Cluster', clusterStores, { numRuns: runs(30) });
describeOrderRepositoryContract('RedisOrderRepository on a Cluster', clusterStores, { numRuns: runs(30) });
describeIdempotencyStoreContract('RedisIdempotencyStore on a Cluster', clusterStores);
describeApiKeyRegistryContract(
  'RedisApiKeyRegistry on a Cluster',
  async () => ({ registry: new RedisApiKeyRegistry(shared.redis, shared.freshPrefix()), cleanup: noCleanup }),
  { numRuns: runs(30) },
);
describeKeyAdminContract('RedisApiKeyRegistry on a Cluster', async (clock) => ({
  registry: new RedisApiKeyRegistry(shared.redis, shared.freshPrefix(), clock),
  cleanup: noCleanup,
}));

describe('the keys on a Cluster', () => {
  /** Every key under `prefix`, by the port of the master holding it. */
  const keysByMaster = async (prefix: string): Promise<Map<number, string[]>> => {
    const found = new Map<number, string[]>();
    for (const port of shared.cluster.ports) {
      const keys = await shared.cluster.node(port).keys(`${prefix}*`);
      if (keys.length > 0) found.set(port, keys.sort());
    }
    return found;
  };

  it('a node refuses a script over keys of two slots', async () => {
    await expect(shared.redis.eval('return 1', 2, '{a}:x', '{a}:y')).resolves.toBe(1);
    await expect(shared.redis.eval('return 1', 2, '{a}:x', '{b}:y')).rejects.toThrow(/CROSSSLOT/);
  });

  it("spreads quota subjects over every master, each subject's data in one key", async () => {
    const prefix = shared.freshPrefix();
    const store = new RedisQuotaStore(shared.redis, { prefix });
    for (let i = 0; i < 30; i++) await store.decide(`key:${i}`, { rules: STANDARD_PLANS.free.rules });
    const found = await keysByMaster(prefix);
    expect(found.size).toBe(3);
    expect([...found.values()].flat()).toHaveLength(30);
  });

  it('keeps pets, orders and Idempotency-Key records on one master, in the {pets} slot', async () => {
    const prefix = shared.freshPrefix();
    const pets = new RedisPetRepository(shared.redis, prefix);
    const orders = new RedisOrderRepository(shared.redis, prefix);
    const idempotency = new RedisIdempotencyStore(shared.redis, prefix);
    const pet = await pets.create({ name: 'Rex', categoryId: 1, status: 'available' });
    const claim = claimOf('k1');
    await idempotency.begin(claim);
    await orders.place({ petId: pet.id, ownerId: 'owner-1', placedAt: '2026-11-21T08:36:00.123Z' }, claim);
    const found = await keysByMaster(prefix);
    expect(found.size).toBe(1);
    const keys = [...found.values()].flat();
    expect(keys.length).toBeGreaterThan(8);
    const slots = await Promise.all(keys.map((key) => shared.redis.cluster('KEYSLOT', key)));
    expect(new Set(slots)).toEqual(new Set([await shared.redis.cluster('KEYSLOT', `${prefix}{pets}:records`)]));
  });

  it("keeps a credit subject's balance, usage rows and periods in one slot, subjects spread over the masters, the index in a slot of its own", async () => {
    const prefix = shared.freshPrefix();
    const ledger = new RedisCreditLedger(shared.redis, prefix);
    const rule = { name: 'monthly', credits: 100, refill: 'month' } as const;
    for (let i = 0; i < 30; i++) await ledger.spend(`key:${i}`, rule, 1, Date.UTC(2026, 0, 1));
    const found = await keysByMaster(prefix);
    expect(found.size).toBe(3);
    const keys = [...found.values()].flat();
    expect(keys).toHaveLength(3 * 30 + 1);
    const slotOf = (key: string): Promise<number> => shared.redis.cluster('KEYSLOT', key);
    for (let i = 0; i < 30; i++) {
      const base = `${prefix}{k:key:${i}}`;
      expect(new Set(await Promise.all([base, `${base}:usage`, `${base}:periods`].map(slotOf))).size).toBe(1);
    }
    expect(await ledger.usage({})).toHaveLength(30);
  });

  it('keeps the API keys in one hash, on one master', async () => {
    const prefix = shared.freshPrefix();
    const registry = new RedisApiKeyRegistry(shared.redis, prefix);
    await registry.createKey('ab'.repeat(32), { id: 'key_1', label: '', plan: STANDARD_PLANS.pro, role: 'customer', createdAt: 1 });
    await registry.register('cd'.repeat(32), { plan: STANDARD_PLANS.free, role: 'customer' });
    expect([...(await keysByMaster(prefix)).values()]).toEqual([[`${prefix}api-keys`]]);
  });
});

describe('quota calls on a Cluster', () => {
  it("sends a subject's batch to its master as soon as it holds eight calls, not at the end of the turn", async () => {
    const store = new RedisQuotaStore(shared.redis, { prefix: shared.freshPrefix() });
    const policy: QuotaPolicy = { rules: [{ name: 'minute', limit: 100, windowMs: 60_000 }] };
    await store.decide('warm', policy);
    // What the masters' connections hold unsent: a filled batch corked until the turn ends would show here.
    const unsent = (): number => shared.redis.nodes('master').reduce((sum, node) => sum + (node.stream?.writableLength ?? 0), 0);
    const decisions: Promise<QuotaDecision>[] = [];
    const held: number[] = [];
    for (let i = 0; i < 20; i++) {
      decisions.push(store.decide('busy', policy));
      held.push(unsent());
    }
    expect(held).toEqual(new Array(20).fill(0));
    expect((await Promise.all(decisions)).map(({ remaining }) => remaining[0])).toEqual(Array.from({ length: 20 }, (_, i) => 99 - i));
  });
});
