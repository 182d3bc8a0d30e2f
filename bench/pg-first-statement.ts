/**
 * What a new PostgreSQL connection costs before its first statement answers: the service's
 * database (createPostgresDatabase: enable_seqscan=off, the bound array types declared, no type
 * lookup) against postgres.js as it comes (it asks each new connection for the server's array
 * types) with and without the service's enable_seqscan=off. The pool reopens a connection after
 * 30 s idle and after every PostgreSQL restart, so this is a request's wait after a quiet spell.
 *
 * Each sample opens a client, times `SELECT 1` (connect, the type lookup where made, the
 * statement), and ends it; the three alternate, so drift hits all alike. Prints the medians and
 * each one's ratio to the service's. Touches no table: it connects to the `postgres` database.
 *
 * Run: `npm run build && node dist/bench/pg-first-statement.js`. Environment: PGHOST
 * (127.0.0.1), PGPORT (5432), PGUSER (postgres), BENCH_SAMPLES (15).
 */
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { createPostgresDatabase } from '../src/adapters/postgres/postgres-database.js';
import { positiveFromEnv } from './http/env.js';
import { median } from './http/report.js';

const url = `postgres://${process.env['PGUSER'] ?? 'postgres'}@${process.env['PGHOST'] ?? '127.0.0.1'}:${process.env['PGPORT'] ?? '5432'}/postgres`;
const samples = positiveFromEnv('BENCH_SAMPLES', 15);

const timed = async (firstStatement: () => Promise<unknown>, end: () => Promise<void>): Promise<number> => {
  const started = performance.now();
  await firstStatement();
  const elapsed = performance.now() - started;
  await end();
  return elapsed;
};

const SERVICE = 'the service (no type lookup)';
const clients: Record<string, () => Promise<number>> = {
  [SERVICE]: () => {
    const db = createPostgresDatabase({ url, max: 1, timeoutMs: 10_000 });
    return timed(() => db.read('SELECT 1'), () => db.end());
  },
  'postgres.js, type lookup, enable_seqscan=off': () => {
    const sql = postgres(url, { max: 1, onnotice: () => undefined, connection: { enable_seqscan: 'off' } });
    return timed(() => sql.unsafe('SELECT 1', [], { prepare: true }), () => sql.end());
  },
  'postgres.js as it comes (type lookup)': () => {
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    return timed(() => sql.unsafe('SELECT 1', [], { prepare: true }), () => sql.end());
  },
};

const times = new Map(Object.keys(clients).map((name) => [name, [] as number[]]));
for (let sample = 0; sample < samples; sample++) {
  for (const [name, measure] of Object.entries(clients)) times.get(name)!.push(await measure());
}
const service = median(times.get(SERVICE)!);
console.log(`First statement on a new connection, ${url}, median of ${samples} each:\n`);
console.log('| client | ms, median | min – max | × the service |\n|---|---:|---:|---:|');
for (const [name, values] of times) {
  const middle = median(values);
  console.log(`| ${name} | ${middle.toFixed(1)} | ${Math.min(...values).toFixed(1)} – ${Math.max(...values).toFixed(1)} | ${(middle / service).toFixed(1)} |`);
}
