/**
 * The PGlite store beside the memory and PostgreSQL stores, in one run: µs per call of a pet's
 * create (one committed write), a get by id and a page of 20 (GET /v1/pets?limit=20 from a
 * random id), through the repositories the service uses, each call awaited before the next (one
 * client: PGlite serves one call at a time whatever the load, so this is its best case, and
 * PostgreSQL's pipelining and pool are not what is measured). Figures are medians; the last
 * columns are each store's over memory's and PGlite's over PostgreSQL's.
 *
 * PGlite runs twice: in a temporary directory (as PETSTORE_STORE=pglite keeps it, each commit
 * written to its files) and in memory (what the files cost). PostgreSQL is the local server
 * (BENCH_PG_HOST / BENCH_PG_PORT / BENCH_PG_USER), in a database of the run's own, dropped after;
 * skipped, and said so, when psql reaches none.
 *
 * Run: `npm run bench:pglite`. Environment: BENCH_PETS (2,000 creates, which seed the reads),
 * BENCH_OPS (2,000 gets and pages), BENCH_WARMUP (200 of each, not counted).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createMemoryStores } from '../src/adapters/memory/memory-stores.js';
import { migrate } from '../src/adapters/postgres/migrate.js';
import { readMigrations } from '../src/adapters/postgres/migration-files.js';
import { openPgliteDatabase } from '../src/adapters/pglite/pglite-database.js';
import { createPostgresDatabase, type PostgresDatabase } from '../src/adapters/postgres/postgres-database.js';
import { PostgresPetRepository } from '../src/adapters/postgres/postgres-pet-repository.js';
import { SystemClock } from '../src/adapters/system/system-clock.js';
import type { PetRepository } from '../src/ports/pet-repository.js';
import { positiveFromEnv } from './http/env.js';
import { createBenchDatabase, postgresVersion } from './http/postgres.js';

const pets = positiveFromEnv('BENCH_PETS', 2_000);
const operations = positiveFromEnv('BENCH_OPS', 2_000);
const warmup = positiveFromEnv('BENCH_WARMUP', 200);
const PAGE = 20;

interface Store {
  readonly name: string;
  /** Why it is skipped, or undefined. */
  unavailable(): Promise<string | undefined>;
  open(): Promise<{ readonly pets: PetRepository; close(): Promise<void> }>;
}

/** The PostgreSQL store's pet repository on a migrated database; `close` ends it and `after` runs. */
const onDatabase = async (db: PostgresDatabase, after: () => Promise<void> | void) => {
  await migrate(db, readMigrations());
  return {
    pets: new PostgresPetRepository(db, new SystemClock()),
    close: async () => {
      await db.end();
      await after();
    },
  };
};

const STORES: readonly Store[] = [
  {
    name: 'memory',
    unavailable: async () => undefined,
    open: async () => ({ pets: createMemoryStores(new SystemClock()).pets, close: async () => {} }),
  },
  {
    name: 'pglite (directory)',
    unavailable: async () => undefined,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'petstore-bench-pglite-'));
      // A bench's calls wait for no one: no deadline to refuse them.
      return onDatabase(await openPgliteDatabase({ dataDir: dir, timeoutMs: 600_000 }), () => rmSync(dir, { recursive: true, force: true }));
    },
  },
  {
    name: 'pglite (memory)',
    unavailable: async () => undefined,
    open: async () => onDatabase(await openPgliteDatabase({ timeoutMs: 600_000 }), () => undefined),
  },
  {
    name: 'postgres',
    unavailable: async () => ((await postgresVersion()) === undefined ? 'psql reaches no PostgreSQL' : undefined),
    async open() {
      const database = await createBenchDatabase();
      return onDatabase(createPostgresDatabase({ url: database.url, max: 2, timeoutMs: 600_000 }), () => database.drop());
    },
  },
];

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** µs per call, the median of `count` calls one after the other, after `warmup` uncounted. */
async function timed(count: number, call: (step: number) => Promise<unknown>, uncounted = warmup): Promise<number> {
  for (let step = 0; step < uncounted; step++) await call(step);
  const times: number[] = [];
  for (let step = 0; step < count; step++) {
    const start = performance.now();
    await call(step);
    times.push((performance.now() - start) * 1_000);
  }
  return median(times);
}

/** A deterministic sequence in [1, bound], the same for every store. */
const randoms = () => {
  let state = 42;
  return (bound: number): number => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return (state % bound) + 1;
  };
};

type Figures = Readonly<Record<'create' | 'get' | 'page', number>>;
const results = new Map<string, Figures>();
for (const store of STORES) {
  const skipped = await store.unavailable();
  if (skipped !== undefined) {
    console.log(`${store.name}: skipped (${skipped})`);
    continue;
  }
  const opened = await store.open();
  try {
    // The creates seed the reads: none is uncounted, each is a pet the reads find.
    const create = await timed(pets, (step) => opened.pets.create({ name: `pet ${step}`, categoryId: 1 + (step % 7), status: 'available' }), 0);
    const getRandom = randoms();
    const get = await timed(operations, () => opened.pets.get(getRandom(pets)));
    const pageRandom = randoms();
    const page = await timed(operations, () => opened.pets.pageJson({ afterId: pageRandom(pets - PAGE), limit: PAGE }));
    results.set(store.name, { create, get, page });
    console.log(`${store.name}: create ${create.toFixed(0)} µs, get ${get.toFixed(0)} µs, page ${page.toFixed(0)} µs`);
  } finally {
    await opened.close();
  }
}

const memory = results.get('memory');
const postgres = results.get('postgres');
const ratio = (value: number, base: number | undefined): string => (base === undefined ? '–' : `×${Number((value / base).toPrecision(2))}`);
console.log(`\n${pets} creates, ${operations} gets and pages of ${PAGE}, one call at a time; median µs per call\n`);
console.log('| store | create | get | page | over memory (create, get, page) | over postgres (create, get, page) |');
console.log('|---|---|---|---|---|---|');
for (const [name, figures] of results) {
  const over = (base: Figures | undefined): string =>
    base === undefined ? '–' : (['create', 'get', 'page'] as const).map((op) => ratio(figures[op], base[op])).join(', ');
  console.log(`| ${name} | ${figures.create.toFixed(0)} | ${figures.get.toFixed(0)} | ${figures.page.toFixed(0)} | ${over(memory)} | ${over(postgres)} |`);
}
