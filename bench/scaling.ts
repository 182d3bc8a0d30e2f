/**
 * How the cost of a read or a write grows with the number of pets, on each store: the
 * inventory (GET /v1/store/inventory), a page of pets filtered by a status few pets have
 * (GET /v1/pets?status=sold with 5 sold pets), a page of orders filtered by a status no order
 * has (a staff GET /v1/store/orders?status=approved) and a pet's status change (PATCH
 * /v1/pets/{petId}), each at 1,000, 100,000 and 1,000,000 pets, with a tenth as many orders.
 * The 1,000-pet store is the reference: each line ends with the ratio of the largest size's
 * figure to it, which stays near 1 when the cost is flat.
 *
 * Each store is seeded directly, in bulk (the memory store through its own calls, Redis by
 * pipelined writes of the adapter's record format, PostgreSQL by generate_series), then each
 * operation is called BENCH_OPS times one after the other, after BENCH_WARMUP calls, through the
 * repositories the service uses: the figure is the median time of one call, in µs. A page read
 * starts after a random id with a random limit, so reads seldom ask for the same page (the memory
 * store keeps pages until the next write).
 * Status changes move random available pets to pending and back.
 *
 * Run: `npm run bench:scaling`. Environment: BENCH_STORES (memory,redis,postgres), BENCH_SIZES
 * (1000,100000,1000000), BENCH_OPS (1,000),
 * BENCH_WARMUP (200), REDIS_URL (redis://127.0.0.1:6379; keys under a prefix of the run's own,
 * deleted after), BENCH_PG_HOST / BENCH_PG_PORT / BENCH_PG_USER (a database of the run's own per
 * size, dropped after). A store that cannot be reached is skipped, and said so.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createMemoryStores } from '../src/adapters/memory/memory-stores.js';
import { migrate } from '../src/adapters/postgres/migrate.js';
import { readMigrations } from '../src/adapters/postgres/migration-files.js';
import { createPostgresDatabase } from '../src/adapters/postgres/postgres-database.js';
import { PostgresOrderRepository } from '../src/adapters/postgres/postgres-order-repository.js';
import { PostgresPetRepository } from '../src/adapters/postgres/postgres-pet-repository.js';
import { createRedisClient } from '../src/adapters/redis/redis-client.js';
import { RedisOrderRepository } from '../src/adapters/redis/redis-order-repository.js';
import { orderRecord } from '../src/adapters/redis/redis-order-record.js';
import { petRecord } from '../src/adapters/redis/redis-pet-record.js';
import { RedisPetRepository } from '../src/adapters/redis/redis-pet-repository.js';
import { PetsSlotKeys } from '../src/adapters/redis/pets-slot-keys.js';
import { SystemClock } from '../src/adapters/system/system-clock.js';
import type { PetStatus } from '../src/domain/pets/pet.js';
import type { OrderRepository } from '../src/ports/order-repository.js';
import type { PetRepository } from '../src/ports/pet-repository.js';
import { positiveFromEnv } from './http/env.js';
import { createBenchDatabase, postgresVersion } from './http/postgres.js';
import { deleteKeysUnder } from './http/redis-stats.js';

const sizes = (process.env['BENCH_SIZES'] ?? '1000,100000,1000000').split(',').map(Number);
if (sizes.some((size) => !Number.isSafeInteger(size) || size < 100)) throw new Error('BENCH_SIZES must be integers of at least 100, comma-separated');
const operations = positiveFromEnv('BENCH_OPS', 1_000);
const warmup = positiveFromEnv('BENCH_WARMUP', 200);
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const SOLD = 5;
const PLACED_AT = '2026-11-27T00:00:00.000Z';

/** What a size is seeded with: `size` pets, SOLD of them sold, a tenth pending under a placed order each, the rest available. */
const layout = (size: number) => ({ orders: Math.floor(size / 10), soldEvery: Math.floor(size / SOLD) });
const statusOf = (id: number, size: number): PetStatus => {
  const { orders, soldEvery } = layout(size);
  if (id % soldEvery === 0) return 'sold';
  return id <= orders ? 'pending' : 'available';
};

interface Stores {
  readonly pets: PetRepository;
  readonly orders: OrderRepository;
  close(): Promise<void>;
}

interface Store {
  readonly name: string;
  /** Why it is skipped, or undefined when it can be measured. */
  unavailable(): Promise<string | undefined>;
  seeded(size: number): Promise<Stores>;
}

const memory: Store = {
  name: 'memory',
  unavailable: async () => undefined,
  async seeded(size) {
    const { pets, orders } = createMemoryStores(new SystemClock());
    const { orders: ordered } = layout(size);
    for (let id = 1; id <= size; id++) {
      const status = statusOf(id, size);
      await pets.create({ name: `pet ${id}`, categoryId: 1, status: status === 'sold' ? 'sold' : 'available' });
    }
    for (let petId = 1; petId <= ordered; petId++) await orders.place({ petId, ownerId: `owner ${petId % 50}`, placedAt: PLACED_AT });
    return { pets, orders, close: async () => {} };
  },
};

const redisPrefix = `petstore-bench:scaling:${randomBytes(4).toString('hex')}:`;

const redis: Store = {
  name: 'redis',
  async unavailable() {
    try {
      const client = await createRedisClient({ url: redisUrl });
      client.disconnect();
      return undefined;
    } catch (error) {
      return `no Redis at ${redisUrl} (${String(error)})`;
    }
  },
  async seeded(size) {
    const client = await createRedisClient({ url: redisUrl, commandTimeoutMs: 60_000 });
    const prefix = `${redisPrefix}${size}:`;
    const keys = new PetsSlotKeys(prefix);
    const { orders: ordered } = layout(size);
    // The adapters' own record format, written in chunks of one command per 1,000 ids.
    const CHUNK = 1_000;
    for (let from = 1; from <= size; from += CHUNK * 50) {
      const pipeline = client.pipeline();
      for (let start = from; start < from + CHUNK * 50 && start <= size; start += CHUNK) {
        const records: string[] = [];
        const all: (string | number)[] = [];
        const byStatus = new Map<PetStatus, (string | number)[]>();
        for (let id = start; id < start + CHUNK && id <= size; id++) {
          const status = statusOf(id, size);
          records.push(String(id), petRecord({ name: `pet ${id}`, categoryId: 1, status }));
          all.push(id, id);
          const members = byStatus.get(status) ?? [];
          members.push(id, id);
          byStatus.set(status, members);
        }
        pipeline.hset(keys.petRecords, ...records);
        pipeline.zadd(keys.petIds, ...all);
        for (const [status, members] of byStatus) pipeline.zadd(keys.petStatus(status), ...members);
      }
      await pipeline.exec();
    }
    for (let from = 1; from <= ordered; from += CHUNK) {
      const records: string[] = [];
      const members: number[] = [];
      const owners = new Map<string, number[]>();
      for (let id = from; id < from + CHUNK && id <= ordered; id++) {
        const ownerId = `owner ${id % 50}`;
        records.push(String(id), orderRecord({ petId: id, ownerId, placedAt: PLACED_AT }));
        members.push(id, id);
        const ids = owners.get(ownerId) ?? [];
        ids.push(id, id);
        owners.set(ownerId, ids);
      }
      const pipeline = client.pipeline();
      pipeline.hset(keys.orderRecords, ...records);
      pipeline.zadd(keys.orderIds, ...members);
      pipeline.zadd(keys.orderStatus('placed'), ...members);
      for (const [ownerId, ids] of owners) {
        pipeline.zadd(keys.ownerOrders(ownerId), ...ids);
        pipeline.zadd(keys.ownerOrderStatus(ownerId, 'placed'), ...ids);
      }
      await pipeline.exec();
    }
    await client.set(keys.petNext, String(size));
    await client.set(keys.orderNext, String(ordered));
    return {
      pets: new RedisPetRepository(client, prefix),
      orders: new RedisOrderRepository(client, prefix),
      close: async () => {
        await deleteKeysUnder(client, prefix);
        client.disconnect();
      },
    };
  },
};

const postgres: Store = {
  name: 'postgres',
  async unavailable() {
    return (await postgresVersion()) === undefined ? 'psql reaches no PostgreSQL' : undefined;
  },
  async seeded(size) {
    const database = await createBenchDatabase();
    // Seeding statements take seconds: far past a request's deadline.
    const db = createPostgresDatabase({ url: database.url, max: 2, timeoutMs: 600_000 });
    await migrate(db, readMigrations());
    const { orders: ordered, soldEvery } = layout(size);
    await db.query(
      `INSERT INTO pets (name, category_id, status)
       SELECT 'pet ' || g, 1, CASE WHEN g % ${soldEvery} = 0 THEN 'sold' WHEN g <= ${ordered} THEN 'pending' ELSE 'available' END
       FROM generate_series(1, ${size}) g`,
    );
    await db.query(
      `INSERT INTO orders (pet_id, owner_id, status, placed_at)
       SELECT g, 'owner ' || (g % 50), 'placed', '${PLACED_AT}' FROM generate_series(1, ${ordered}) g`,
    );
    // What autovacuum does after a bulk load; the service's connections then plan from these statistics.
    await db.query('VACUUM ANALYZE pets');
    await db.query('VACUUM ANALYZE orders');
    const clock = new SystemClock();
    return {
      pets: new PostgresPetRepository(db, clock),
      orders: new PostgresOrderRepository(db, clock),
      close: async () => {
        await db.end();
        await database.drop();
      },
    };
  },
};

/** A deterministic sequence of integers in [0, bound), the same for every store and size. */
const randoms = (seed: number) => {
  let state = seed;
  return (bound: number): number => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % bound;
  };
};

interface Operation {
  readonly name: string;
  /** One call; `step` counts from 0, `random` is the operation's own sequence. */
  call(stores: Stores, size: number, step: number, random: (bound: number) => number): Promise<unknown>;
}

let changing = 0;
const OPERATIONS: readonly Operation[] = [
  { name: 'inventory', call: (stores) => stores.pets.countByStatus() },
  {
    name: `pets page, status=sold (${SOLD} match)`,
    // A limit of 1 to 100 too, so that a small store's pages are not served from the memory store's page cache.
    call: (stores, size, _, random) => stores.pets.pageJson({ afterId: random(size), limit: 1 + random(100), status: 'sold' }),
  },
  { name: 'orders page, status=approved (none)', call: (stores) => stores.orders.page({ afterId: 0, limit: 21, status: 'approved' }) },
  {
    name: 'status change',
    // An available pet to pending, then back: two calls per pet, so the seeded counts stand after.
    call: (stores, size, step, random) => {
      if (step % 2 === 0) {
        const { orders, soldEvery } = layout(size);
        do changing = orders + 1 + random(size - orders);
        while (changing % soldEvery === 0);
        return stores.pets.updateStatus(changing, 'pending');
      }
      return stores.pets.updateStatus(changing, 'available');
    },
  },
];

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Median µs per call of each operation on one seeded store. */
async function measure(stores: Stores, size: number): Promise<number[]> {
  const figures: number[] = [];
  for (const [index, operation] of OPERATIONS.entries()) {
    const random = randoms(index + 1);
    // An even number of calls, so every status change is undone.
    const warm = 2 * Math.ceil(warmup / 2);
    for (let step = 0; step < warm; step++) await operation.call(stores, size, step, random);
    const times: number[] = [];
    for (let step = 0; step < 2 * Math.ceil(operations / 2); step++) {
      const started = performance.now();
      await operation.call(stores, size, step, random);
      times.push((performance.now() - started) * 1_000);
    }
    figures.push(median(times));
  }
  return figures;
}

const format = (micros: number): string => (micros >= 100 ? micros.toFixed(0) : micros.toFixed(1)).padStart(9);
const label = (size: number): string => (size >= 1_000_000 ? `${size / 1_000_000}M` : size >= 1_000 ? `${size / 1_000}k` : String(size));

console.log(`Cost by number of pets (a tenth as many orders): median µs per call over ${operations} calls each, after ${warmup}.`);
console.log(`node ${process.version}, sizes ${sizes.map(label).join(', ')}\n`);
const header = `${'store'.padEnd(9)} ${'operation'.padEnd(38)}${sizes.map((size) => `${label(size)} pets`.padStart(10)).join('')}  ${label(sizes.at(-1)!)}/${label(sizes[0]!)}`;
console.log(header);
console.log('-'.repeat(header.length));
const chosen = (process.env['BENCH_STORES'] ?? 'memory,redis,postgres').split(',');
for (const store of [memory, redis, postgres].filter(({ name }) => chosen.includes(name))) {
  const why = await store.unavailable();
  if (why !== undefined) {
    console.log(`${store.name.padEnd(9)} skipped: ${why}`);
    continue;
  }
  const bySize: number[][] = [];
  for (const size of sizes) {
    const seedingStarted = performance.now();
    const stores = await store.seeded(size);
    const seededIn = (performance.now() - seedingStarted) / 1_000;
    try {
      bySize.push(await measure(stores, size));
    } finally {
      await stores.close();
    }
    process.stderr.write(`${store.name} ${label(size)}: seeded in ${seededIn.toFixed(1)} s\n`);
  }
  for (const [index, operation] of OPERATIONS.entries()) {
    const figures = bySize.map((figuresOfSize) => figuresOfSize[index]!);
    const ratio = figures.at(-1)! / figures[0]!;
    console.log(`${store.name.padEnd(9)} ${operation.name.padEnd(38)}${figures.map((figure) => format(figure).padStart(10)).join('')}  ${ratio.toFixed(2).padStart(6)}`);
  }
}
