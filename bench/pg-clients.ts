/**
 * Which PostgreSQL client for the pet store: `pg` (node-postgres, its Pool) against `postgres`
 * (porsager's postgres.js), measured in one run on the service's three hot paths:
 *
 * 1. page read: `SELECT id, name, category_id, status FROM pets WHERE id > $1 ORDER BY id LIMIT $2`
 *    (limit 21: a page of 20 and one more to know a next page exists), rows mapped to pets and the
 *    page body joined with petJson;
 * 2. create: one transaction, `INSERT INTO pets … RETURNING id` and `INSERT INTO idempotency …`;
 * 3. order placement: one transaction, `SELECT … FOR UPDATE` on a pet, then two UPDATEs.
 *
 * Both clients get the same pool size and the same number of concurrent callers (async loops,
 * each with one operation in flight). A measurement stops at its time or its operation count,
 * whichever comes first; rounds alternate pg, postgres (and pg with named prepared statements,
 * postgres.js prepares by default while pg does not) so drift hits all alike. It prints ops/s
 * and this process's CPU µs per operation (process.cpuUsage: user + system, so the server's CPU
 * is not in it) per round, their medians and the median of the rounds' postgres/pg ratios. Then,
 * for the better client, the page read with its JSON built by PostgreSQL (json_agg) against
 * the rows joined in JS.
 *
 * Each caller here waits for its own operation, so this bench does not see what pipelining saves
 * the server process and PostgreSQL; the service's client was chosen by the HTTP bench
 * (docs/decisions.md, "PostgreSQL").
 *
 * The bench creates its own database, pgbench_<random>, through the `postgres` database, and
 * drops it at the end, also on error or SIGINT/SIGTERM; it touches no other database.
 *
 * Run: `npm run build && node dist/bench/pg-clients.js`. Environment: PGHOST (127.0.0.1),
 * PGPORT (5432), PGUSER (postgres), BENCH_POOL (10), BENCH_CALLERS (32), BENCH_SECONDS (3),
 * BENCH_ROUNDS (3), BENCH_MAX_OPS (1000000), BENCH_WARMUP_SECONDS (2), BENCH_PETS (10000).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import postgres from 'postgres';
import { createPostgresDatabase } from '../src/adapters/postgres/postgres-database.js';
import { PostgresPetRepository } from '../src/adapters/postgres/postgres-pet-repository.js';
import { SystemClock } from '../src/adapters/system/system-clock.js';
import { petJson, petsOfJson } from '../src/domain/pets/pet-json.js';
import type { Pet, PetStatus } from '../src/domain/pets/pet.js';

const positive = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!(value > 0)) throw new Error(`${name} must be a positive number, not ${raw}`);
  return value;
};

const settings = {
  host: process.env['PGHOST'] ?? '127.0.0.1',
  port: positive('PGPORT', 5432),
  user: process.env['PGUSER'] ?? 'postgres',
  pool: positive('BENCH_POOL', 10),
  callers: positive('BENCH_CALLERS', 32),
  seconds: positive('BENCH_SECONDS', 3),
  rounds: positive('BENCH_ROUNDS', 3),
  maxOps: positive('BENCH_MAX_OPS', 1_000_000),
  warmupSeconds: positive('BENCH_WARMUP_SECONDS', 2),
  pets: positive('BENCH_PETS', 10_000),
};
const PAGE_LIMIT = 20;
const READ_LIMIT = PAGE_LIMIT + 1;
const CATEGORIES = 10;

interface PetRow {
  readonly id: number;
  readonly name: string;
  readonly category_id: number;
  readonly status: PetStatus;
}

/** What a caller of the store does per operation, the same for every client. */
interface Store {
  readonly label: string;
  /** The page's rows, in id order. */
  pageRows(afterId: number, limit: number): Promise<readonly PetRow[]>;
  /** The page's rows as a JSON array of pets, built by PostgreSQL. */
  pageJson(afterId: number, limit: number): Promise<string>;
  /** Creates a pet and its idempotency record in one transaction; the pet's id. */
  create(name: string, categoryId: number, key: string): Promise<number>;
  /** Locks the pet, flips its status between available and pending, counts the placement. */
  place(petId: number): Promise<void>;
  end(): Promise<void>;
}

const SQL_PAGE = 'SELECT id, name, category_id, status FROM pets WHERE id > $1 ORDER BY id LIMIT $2';
const SQL_PAGE_JSON =
  "SELECT coalesce(json_agg(json_build_object('id', p.id, 'name', p.name, 'categoryId', p.category_id, 'status', p.status) ORDER BY p.id), '[]')::text AS body " +
  'FROM (SELECT id, name, category_id, status FROM pets WHERE id > $1 ORDER BY id LIMIT $2) p';
const SQL_INSERT_PET = 'INSERT INTO pets(name, category_id, status) VALUES ($1, $2, $3) RETURNING id';
const SQL_INSERT_IDEMPOTENCY =
  "INSERT INTO idempotency(scope, key, fingerprint, result, expires_at) VALUES ($1, $2, $3, $4::text::jsonb, now() + interval '24 hours')";
const SQL_LOCK_PET = 'SELECT status FROM pets WHERE id = $1 FOR UPDATE';
const SQL_SET_STATUS = 'UPDATE pets SET status = $2 WHERE id = $1';
const SQL_COUNT_PLACED = 'UPDATE pet_reservations SET placed = placed + 1 WHERE pet_id = $1';

// One API key's digest and one request fingerprint: the bytes an idempotency record carries.
const SCOPE = 'a'.repeat(64);
const FINGERPRINT = 'f'.repeat(64);
const flipped = (status: string): PetStatus => (status === 'available' ? 'pending' : 'available');

function pgStore(database: string, named: boolean): Store {
  const pool = new pg.Pool({ host: settings.host, port: settings.port, user: settings.user, database, max: settings.pool, idleTimeoutMillis: 0 });
  pool.on('error', () => {}); // an idle client's error: the next query reports it
  const query = (name: string, text: string, values: unknown[]): pg.QueryConfig => (named ? { name, text, values } : { text, values });
  return {
    label: named ? 'pg (named)' : 'pg',
    async pageRows(afterId, limit) {
      return (await pool.query<PetRow>(query('page', SQL_PAGE, [afterId, limit]))).rows;
    },
    async pageJson(afterId, limit) {
      const row = (await pool.query<{ body: string }>(query('page_json', SQL_PAGE_JSON, [afterId, limit]))).rows[0];
      if (row === undefined) throw new Error('page JSON: no row');
      return row.body;
    },
    async create(name, categoryId, key) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const row = (await client.query<{ id: number }>(query('insert_pet', SQL_INSERT_PET, [name, categoryId, 'available']))).rows[0];
        if (row === undefined) throw new Error('INSERT … RETURNING id: no row');
        const result = JSON.stringify({ kind: 'pet', pet: JSON.parse(petJson({ id: row.id, name, categoryId, status: 'available' })) as unknown });
        await client.query(query('insert_idempotency', SQL_INSERT_IDEMPOTENCY, [SCOPE, key, FINGERPRINT, result]));
        await client.query('COMMIT');
        client.release();
        return row.id;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        client.release(true);
        throw error;
      }
    },
    async place(petId) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const row = (await client.query<{ status: string }>(query('lock_pet', SQL_LOCK_PET, [petId]))).rows[0];
        if (row === undefined) throw new Error(`pet ${petId}: not found`);
        await client.query(query('set_status', SQL_SET_STATUS, [petId, flipped(row.status)]));
        await client.query(query('count_placed', SQL_COUNT_PLACED, [petId]));
        await client.query('COMMIT');
        client.release();
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        client.release(true);
        throw error;
      }
    },
    end: () => pool.end(),
  };
}

function postgresStore(database: string): Store {
  const sql = postgres({ host: settings.host, port: settings.port, user: settings.user, database, max: settings.pool, onnotice: () => {} });
  return {
    label: 'postgres',
    async pageRows(afterId, limit) {
      return await sql<PetRow[]>`SELECT id, name, category_id, status FROM pets WHERE id > ${afterId} ORDER BY id LIMIT ${limit}`;
    },
    async pageJson(afterId, limit) {
      const [row] = await sql<{ body: string }[]>`SELECT coalesce(json_agg(json_build_object('id', p.id, 'name', p.name, 'categoryId', p.category_id, 'status', p.status) ORDER BY p.id), '[]')::text AS body FROM (SELECT id, name, category_id, status FROM pets WHERE id > ${afterId} ORDER BY id LIMIT ${limit}) p`;
      if (row === undefined) throw new Error('page JSON: no row');
      return row.body;
    },
    async create(name, categoryId, key) {
      return await sql.begin(async (tx) => {
        const [row] = await tx<{ id: number }[]>`INSERT INTO pets(name, category_id, status) VALUES (${name}, ${categoryId}, ${'available'}) RETURNING id`;
        if (row === undefined) throw new Error('INSERT … RETURNING id: no row');
        const result = JSON.stringify({ kind: 'pet', pet: JSON.parse(petJson({ id: row.id, name, categoryId, status: 'available' })) as unknown });
        await tx`INSERT INTO idempotency(scope, key, fingerprint, result, expires_at) VALUES (${SCOPE}, ${key}, ${FINGERPRINT}, ${result}::text::jsonb, now() + interval '24 hours')`;
        return row.id;
      });
    },
    async place(petId) {
      await sql.begin(async (tx) => {
        const [row] = await tx<{ status: string }[]>`SELECT status FROM pets WHERE id = ${petId} FOR UPDATE`;
        if (row === undefined) throw new Error(`pet ${petId}: not found`);
        await tx`UPDATE pets SET status = ${flipped(row.status)} WHERE id = ${petId}`;
        await tx`UPDATE pet_reservations SET placed = placed + 1 WHERE pet_id = ${petId}`;
      });
    },
    end: () => sql.end({ timeout: 5 }),
  };
}

// ---- what one operation of each scenario does -------------------------------------------------

const toPet = (row: PetRow): Pet => ({ id: row.id, name: row.name, categoryId: row.category_id, status: row.status });
const bodyOf = (pets: readonly Pet[]): string => '[' + pets.map(petJson).join(',') + ']';
const randomAfter = (): number => Math.floor(Math.random() * (settings.pets - READ_LIMIT));
const randomPet = (): number => 1 + Math.floor(Math.random() * settings.pets);

/** The page body, the rows joined in JS: what the service answers, and the next page's start. */
async function pageInJs(store: Store): Promise<string> {
  const pets = (await store.pageRows(randomAfter(), READ_LIMIT)).map(toPet);
  const items = pets.slice(0, PAGE_LIMIT);
  const next = pets.length > PAGE_LIMIT ? items.at(-1)?.id : undefined;
  return bodyOf(items) + (next === undefined ? '' : `#${next}`);
}

/** The same from PostgreSQL's JSON: parsed and checked (petsOfJson) to slice the page and find its next start. */
async function pageInPostgres(store: Store): Promise<string> {
  const pets = petsOfJson(await store.pageJson(randomAfter(), READ_LIMIT));
  const items = pets.slice(0, PAGE_LIMIT);
  const next = pets.length > PAGE_LIMIT ? items.at(-1)?.id : undefined;
  return bodyOf(items) + (next === undefined ? '' : `#${next}`);
}

let created = 0;
const createOne = async (store: Store): Promise<void> => {
  const n = created++;
  await store.create(`Rex ${n}`, 1 + (n % CATEGORIES), randomUUID());
};

interface Scenario {
  readonly id: string;
  readonly title: string;
  readonly run: (store: Store) => Promise<unknown>;
}
const scenarios: readonly Scenario[] = [
  { id: 'page', title: `page read (keyset, limit ${READ_LIMIT}, rows joined in JS)`, run: pageInJs },
  { id: 'create', title: 'create (tx: INSERT pet RETURNING id + INSERT idempotency)', run: createOne },
  { id: 'order', title: 'order placement (tx: SELECT … FOR UPDATE + 2 UPDATEs)', run: (store) => store.place(randomPet()) },
];

// ---- measuring --------------------------------------------------------------------------------

interface Measurement {
  readonly ops: number;
  readonly opsPerSecond: number;
  readonly cpuMicrosPerOp: number;
}

async function measure(operation: () => Promise<unknown>, seconds: number): Promise<Measurement> {
  let started = 0;
  let done = 0;
  let failure: unknown;
  const cpuBefore = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  const loop = async (): Promise<void> => {
    while (failure === undefined && started < settings.maxOps && performance.now() < deadline) {
      started++;
      try {
        await operation();
        done++;
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: settings.callers }, loop));
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  if (failure !== undefined) throw failure;
  return { ops: done, opsPerSecond: done / elapsed, cpuMicrosPerOp: (cpu.user + cpu.system) / done };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const geomean = (values: readonly number[]): number => Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
const fmtOps = (v: number): string => Math.round(v).toLocaleString('en-US');
const fmtCpu = (v: number): string => v.toFixed(1);
const pad = (text: string, width: number): string => text.padEnd(width);
const padLeft = (text: string, width: number): string => text.padStart(width);

interface Variant {
  readonly label: string;
  readonly operation: () => Promise<unknown>;
}

/** Alternating rounds of the variants (after one warm-up each); per variant its rounds' measurements. */
async function alternate(title: string, variants: readonly Variant[]): Promise<Map<string, Measurement[]>> {
  console.log(`\n## ${title}`);
  for (const variant of variants) await measure(variant.operation, settings.warmupSeconds);
  const results = new Map<string, Measurement[]>(variants.map((variant) => [variant.label, []]));
  for (let round = 1; round <= settings.rounds; round++) {
    for (const variant of variants) {
      const m = await measure(variant.operation, settings.seconds);
      results.get(variant.label)!.push(m);
      console.log(`  round ${round} ${pad(variant.label, 30)} ${padLeft(fmtOps(m.opsPerSecond), 8)} ops/s ${padLeft(fmtCpu(m.cpuMicrosPerOp), 7)} CPU µs/op  (${m.ops} ops)`);
    }
  }
  return results;
}

interface Row {
  readonly scenario: string;
  readonly label: string;
  readonly rounds: readonly Measurement[];
}

/** Median of the rounds' ratios a/b (rounds paired by their order). */
const pairedRatio = (a: readonly Measurement[], b: readonly Measurement[], of: (m: Measurement) => number): number =>
  median(a.map((m, i) => of(m) / of(b[i]!)));

function printTable(rows: readonly Row[]): void {
  const scenarioWidth = Math.max(...rows.map((r) => r.scenario.length), 8);
  const labelWidth = Math.max(...rows.map((r) => r.label.length), 6);
  console.log(
    `| ${pad('scenario', scenarioWidth)} | ${pad('client', labelWidth)} | median ops/s | ops/s per round          | median CPU µs/op | CPU µs/op per round   |`,
  );
  console.log(`|${'-'.repeat(scenarioWidth + 2)}|${'-'.repeat(labelWidth + 2)}|-------------:|--------------------------|-----------------:|-----------------------|`);
  for (const row of rows) {
    console.log(
      `| ${pad(row.scenario, scenarioWidth)} | ${pad(row.label, labelWidth)} | ${padLeft(fmtOps(median(row.rounds.map((m) => m.opsPerSecond))), 12)} | ${pad(row.rounds.map((m) => fmtOps(m.opsPerSecond)).join(' / '), 24)} | ${padLeft(fmtCpu(median(row.rounds.map((m) => m.cpuMicrosPerOp))), 16)} | ${pad(row.rounds.map((m) => fmtCpu(m.cpuMicrosPerOp)).join(' / '), 21)} |`,
    );
  }
}

// ---- the database -----------------------------------------------------------------------------

/** Dead tuples of the phase before (updates, inserts) cleared, so each phase starts alike. */
async function vacuum(database: string): Promise<void> {
  const client = new pg.Client({ host: settings.host, port: settings.port, user: settings.user, database });
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

async function createSchema(database: string): Promise<void> {
  const client = new pg.Client({ host: settings.host, port: settings.port, user: settings.user, database });
  await client.connect();
  try {
    await client.query(`
      CREATE TABLE categories (id integer PRIMARY KEY, name text NOT NULL);
      CREATE TABLE pets (
        id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        name text NOT NULL,
        category_id integer NOT NULL REFERENCES categories(id),
        status text NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      );
      CREATE TABLE pet_reservations (pet_id integer PRIMARY KEY REFERENCES pets(id), placed integer NOT NULL DEFAULT 0);
      CREATE TABLE idempotency (
        scope text NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        result jsonb NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (scope, key)
      );
      INSERT INTO categories(id, name) SELECT g, 'category ' || g FROM generate_series(1, ${CATEGORIES}) g;
      INSERT INTO pets(name, category_id, status)
        SELECT 'Pet ' || g, 1 + g % ${CATEGORIES}, (ARRAY['available', 'pending', 'sold'])[1 + g % 3] FROM generate_series(1, ${settings.pets}) g;
      INSERT INTO pet_reservations(pet_id) SELECT id FROM pets;
    `);
    await client.query('VACUUM ANALYZE');
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pets');
    if (rows[0]?.n !== settings.pets) throw new Error(`seeded ${rows[0]?.n} pets, not ${settings.pets}`);
  } finally {
    await client.end();
  }
}

/** The page bodies of both ways agree, for every client, and the writes land. */
async function check(stores: readonly Store[], database: string): Promise<void> {
  for (const store of stores) {
    for (const afterId of [0, 5000, settings.pets - 5, settings.pets + 1_000_000]) {
      const inJs = (await store.pageRows(afterId, READ_LIMIT)).map(toPet);
      const inPg = petsOfJson(await store.pageJson(afterId, READ_LIMIT));
      if (bodyOf(inJs) !== bodyOf(inPg)) throw new Error(`${store.label}: the page after ${afterId} differs between JS and PostgreSQL JSON`);
    }
    const id = await store.create('Check', 1, randomUUID());
    if (!Number.isSafeInteger(id)) throw new Error(`${store.label}: create returned ${String(id)}`);
    await store.place(1);
  }
  const client = new pg.Client({ host: settings.host, port: settings.port, user: settings.user, database });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number; objects: number; placed: number }>(
      "SELECT (SELECT count(*)::int FROM idempotency) AS n, (SELECT count(*)::int FROM idempotency WHERE jsonb_typeof(result) = 'object' AND (result->'pet'->>'id')::int > 0) AS objects, (SELECT placed FROM pet_reservations WHERE pet_id = 1) AS placed",
    );
    const row = rows[0];
    if (row?.n !== stores.length || row.objects !== stores.length || row.placed !== stores.length) throw new Error(`check of the writes failed: ${JSON.stringify(row)}`);
  } finally {
    await client.end();
  }
}

// ---- main -------------------------------------------------------------------------------------

// postgres.js does not export its package.json: read it where npm installed it.
const version = (name: string): string => {
  try {
    return (JSON.parse(readFileSync(join(process.cwd(), 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
};

const admin = new pg.Client({ host: settings.host, port: settings.port, user: settings.user, database: 'postgres' });
await admin.connect();
const database = `pgbench_${randomBytes(6).toString('hex')}`;
await admin.query(`CREATE DATABASE ${database}`);
const stores: Store[] = [];
let cleaned: Promise<void> | undefined;
const cleanup = (): Promise<void> =>
  (cleaned ??= (async () => {
    await Promise.allSettled(stores.map((store) => store.end()));
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    console.log(`\ndropped database ${database}`);
  })());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void cleanup().finally(() => process.exit(130));
  });
}

try {
  const server = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version ?? '?';
  console.log(`# pg ${version('pg')} vs postgres ${version('postgres')} — PostgreSQL ${server}, Node ${process.version}, database ${database}`);
  console.log(
    `# pool ${settings.pool} each, ${settings.callers} concurrent callers, ${settings.rounds} alternating rounds of ${settings.seconds} s (at most ${settings.maxOps} ops), ${settings.warmupSeconds} s warm-up per variant, ${settings.pets} pets seeded`,
  );
  await createSchema(database);
  const pgPlain = pgStore(database, false);
  const postgresJs = postgresStore(database);
  const pgNamed = pgStore(database, true);
  stores.push(pgPlain, postgresJs, pgNamed);
  await check(stores, database);

  const rows: Row[] = [];
  const ratios: { scenario: string; ops: number; cpu: number; namedOps: number; namedCpu: number }[] = [];
  // BENCH_PART=json: only the page JSON comparison below.
  for (const scenario of process.env['BENCH_PART'] === 'json' ? [] : scenarios) {
    await vacuum(database);
    const results = await alternate(
      scenario.title,
      stores.map((store) => ({ label: store.label, operation: () => scenario.run(store) })),
    );
    for (const store of stores) rows.push({ scenario: scenario.id, label: store.label, rounds: results.get(store.label)! });
    const pgRounds = results.get(pgPlain.label)!;
    const postgresRounds = results.get(postgresJs.label)!;
    const namedRounds = results.get(pgNamed.label)!;
    ratios.push({
      scenario: scenario.id,
      ops: pairedRatio(postgresRounds, pgRounds, (m) => m.opsPerSecond),
      cpu: pairedRatio(postgresRounds, pgRounds, (m) => m.cpuMicrosPerOp),
      namedOps: pairedRatio(namedRounds, pgRounds, (m) => m.opsPerSecond),
      namedCpu: pairedRatio(namedRounds, pgRounds, (m) => m.cpuMicrosPerOp),
    });
  }

  console.log('\n## Clients (medians of the rounds)');
  printTable(rows);
  console.log('\n| scenario | postgres/pg ops/s | postgres/pg CPU µs/op | pg (named)/pg ops/s | pg (named)/pg CPU µs/op |');
  console.log('|----------|------------------:|----------------------:|--------------------:|------------------------:|');
  for (const r of ratios) {
    console.log(`| ${pad(r.scenario, 8)} | ${padLeft(r.ops.toFixed(2), 17)} | ${padLeft(r.cpu.toFixed(2), 21)} | ${padLeft(r.namedOps.toFixed(2), 19)} | ${padLeft(r.namedCpu.toFixed(2), 23)} |`);
  }
  const opsRatio = ratios.length === 0 ? 1 : geomean(ratios.map((r) => r.ops));
  const cpuRatio = ratios.length === 0 ? 1 : geomean(ratios.map((r) => r.cpu));
  // Throughput decides when it differs by more than 10 % (its rounds spread about that much on a
  // 2-core machine the server shares); closer than that, this process's CPU per operation does.
  const postgresBetter = Math.abs(opsRatio - 1) > 0.1 ? opsRatio > 1 : cpuRatio < 1;
  const better = postgresBetter ? postgresJs : pgPlain;
  console.log(
    `\npostgres/pg over the three scenarios (geometric mean of the ratios): ops/s ${opsRatio.toFixed(2)}, CPU µs/op ${cpuRatio.toFixed(2)} → better client: ${better.label}`,
  );

  await vacuum(database);
  const repositoryDatabase = createPostgresDatabase({ url: `postgres://${settings.user}@${settings.host}:${settings.port}/${database}`, max: settings.pool });
  const repository = new PostgresPetRepository(repositoryDatabase, new SystemClock());
  const json = await alternate(`page read, ${better.label}: JSON in JS vs JSON by PostgreSQL`, [
    { label: 'rows → JSON in JS', operation: () => pageInJs(better) },
    { label: 'json_agg → parse → JSON', operation: () => pageInPostgres(better) },
    { label: 'json_agg text as is (ceiling)', operation: () => better.pageJson(randomAfter(), READ_LIMIT) },
    // What the service runs: PostgresPetRepository.pageJson, its page joined by string_agg in PostgreSQL, the next page found by a probe.
    { label: 'repository (string_agg)', operation: async () => (await repository.pageJson({ afterId: randomAfter(), limit: PAGE_LIMIT })).json },
  ]);
  console.log(`\n## Page JSON, ${better.label} (medians of the rounds)`);
  printTable([...json].map(([label, rounds]) => ({ scenario: 'page', label, rounds })));
  const inJs = json.get('rows → JSON in JS')!;
  const inPg = json.get('json_agg → parse → JSON')!;
  const ceiling = json.get('json_agg text as is (ceiling)')!;
  const inRepository = json.get('repository (string_agg)')!;
  console.log(
    `\nrepository (string_agg by PostgreSQL) / rows joined in JS: ops/s ${pairedRatio(inRepository, inJs, (m) => m.opsPerSecond).toFixed(2)}, CPU µs/op ${pairedRatio(inRepository, inJs, (m) => m.cpuMicrosPerOp).toFixed(2)}`,
  );
  console.log(
    `\nPostgreSQL-built / JS-built: ops/s ${pairedRatio(inPg, inJs, (m) => m.opsPerSecond).toFixed(2)}, CPU µs/op ${pairedRatio(inPg, inJs, (m) => m.cpuMicrosPerOp).toFixed(2)}` +
      ` (ceiling, text not parsed: ops/s ${pairedRatio(ceiling, inJs, (m) => m.opsPerSecond).toFixed(2)}, CPU µs/op ${pairedRatio(ceiling, inJs, (m) => m.cpuMicrosPerOp).toFixed(2)})`,
  );
  await repositoryDatabase.end();
} finally {
  await cleanup();
}
