import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createRedisClient } from '../../src/adapters/redis/redis-client.js';
import { RedisConcurrencySlots } from '../../src/adapters/redis/redis-concurrency-slots.js';
import { CONTRACT_LEASE_MS, describeConcurrencySlotsContract } from '../contracts/concurrency-slots-contract.js';
import { useTestRedis } from '../support/use-test-redis.js';

const shared = useTestRedis();

describeConcurrencySlotsContract('redis', async (clock) => ({
  // The contract gives every test subjects of its own; the file's cleanup deletes the keys.
  slots: new RedisConcurrencySlots(shared.redis, { prefix: shared.freshPrefix(), leaseMs: CONTRACT_LEASE_MS, time: clock }),
  cleanup: async () => {},
}));

/** Short leases on the server's clock, waited out in real time. */
const LEASE_MS = 600;

describe('RedisConcurrencySlots on the server clock', () => {
  it('keeps the slots of a living instance past the lease time, renewing them, until they are released', async () => {
    const slots = new RedisConcurrencySlots(shared.redis, { prefix: shared.freshPrefix(), leaseMs: LEASE_MS });
    const { lease } = await slots.acquire('key:a', 1);
    await sleep(3 * LEASE_MS);
    expect((await slots.acquire('key:a', 1)).granted).toBe(false);
    await slots.release('key:a', lease!);
    expect((await slots.acquire('key:a', 1)).granted).toBe(true);
  });

  it("gives another instance the slots of one gone without releasing them within the lease time, and leaves no key behind", async () => {
    const prefix = shared.freshPrefix();
    const gone = await createRedisClient({ url: shared.url, commandTimeoutMs: 5_000 });
    const dying = new RedisConcurrencySlots(gone, { prefix, leaseMs: LEASE_MS });
    const living = new RedisConcurrencySlots(shared.redis, { prefix, leaseMs: LEASE_MS });
    for (let i = 0; i < 3; i++) expect((await dying.acquire('key:a', 3)).granted).toBe(true);
    // Its connection dropped: its renewals reach Redis no more, as if the process were killed.
    gone.disconnect();
    const lostAt = Date.now();
    expect((await living.acquire('key:a', 3)).granted).toBe(false);
    let freed: number | undefined;
    while (freed === undefined) {
      await sleep(50);
      const { lease } = await living.acquire('key:a', 1);
      if (lease !== undefined) {
        freed = Date.now() - lostAt;
        await living.release('key:a', lease);
      }
    }
    // Within the lease time after the last renewal, which came at most a third of it before the loss.
    expect(freed).toBeLessThanOrEqual(LEASE_MS + 200);
    // The dying instance's leases expired and were dropped, the living one's released: nothing is left.
    expect(await shared.redis.exists(`${prefix}{c:key:a}`)).toBe(0);
  });
});
