/**
 * How many instances one PostgreSQL serves: 1, 2 and 3 processes of this service
 * (bench/servers/petstore-server.ts, PETSTORE_STORE=postgres) on one database of the bench's
 * own and one Redis key prefix, the `create` scenario's 50 connections split over them
 * (autocannon runs side by side, one per instance). Per count: total req/s, the instances'
 * CPU per request, PostgreSQL's (every `postgres` process, /proc) and Redis's.
 *
 * `npm run build && node dist/bench/postgres-instances.js`. Environment: BENCH_ROUNDS (3),
 * BENCH_SECONDS (4), BENCH_WARMUP_SECONDS (1), BENCH_INSTANCES (`1,2,3`), REDIS_URL.
 * On a 2-core machine the instances, PostgreSQL, Redis and the load generator share two
 * cores: the total is bounded by the cores, not by what PostgreSQL could serve.
 */
import { randomBytes } from 'node:crypto';
import { positiveFromEnv } from './http/env.js';
import { runLoad, type Load } from './http/load.js';
import { cpuBetween, createBenchDatabase, postgresSetting, postgresVersion, processCpu } from './http/postgres.js';
import { connectRedis, deleteKeysUnder } from './http/redis-stats.js';
import { median } from './http/report.js';
import { scenarios } from './http/scenarios.js';
import { startServer, type RunningServer, type ServerSpec } from './http/servers.js';

const CONNECTIONS = 50;
const rounds = positiveFromEnv('BENCH_ROUNDS', 3);
const seconds = positiveFromEnv('BENCH_SECONDS', 4);
const warmUpSeconds = positiveFromEnv('BENCH_WARMUP_SECONDS', 1);
const counts = (process.env['BENCH_INSTANCES'] ?? '1,2,3').split(',').map(Number);
const redisUrl = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';

const redis = await connectRedis(redisUrl);
const version = await postgresVersion();
if (redis === undefined || version === undefined) throw new Error('needs Redis (REDIS_URL) and PostgreSQL (psql on 127.0.0.1:5432, user postgres)');
const create = scenarios(CONNECTIONS).find((scenario) => scenario.id === 'create')!;
console.log(
  `PostgreSQL ${version} (synchronous_commit=${await postgresSetting('synchronous_commit')}), ${CONNECTIONS} connections split over the instances, ` +
    `${rounds} rounds of ${seconds} s after ${warmUpSeconds} s of warm-up, ${create.title}`,
);

interface Row {
  readonly instances: number;
  readonly requestsPerSecond: number[];
  readonly serviceCpuUs: number[];
  readonly postgresCpuUs: number[];
  readonly redisCpuUs: number[];
  non2xx: number;
}
const rows: Row[] = [];

for (const count of counts) {
  const database = await createBenchDatabase();
  const prefix = `petstore-bench:${randomBytes(4).toString('hex')}:instances:`;
  const spec: ServerSpec = {
    name: 'postgres',
    label: 'petstore, PostgreSQL store',
    script: 'petstore-server.js',
    env: { PETSTORE_STORE: 'postgres', DATABASE_URL: database.url, REDIS_URL: redisUrl, PETSTORE_REDIS_PREFIX: prefix },
  };
  const servers: RunningServer[] = [];
  const row: Row = { instances: count, requestsPerSecond: [], serviceCpuUs: [], postgresCpuUs: [], redisCpuUs: [], non2xx: 0 };
  try {
    // One after the other: the first applies the migrations, the others find them applied.
    for (let i = 0; i < count; i++) servers.push(await startServer(spec));
    const loads: Load[] = [];
    for (const server of servers) loads.push(await create.prepare(server.baseUrl, 'postgres'));
    // 50 split as evenly as whole connections allow: 50; 25 + 25; 17 + 17 + 16.
    const share = (i: number): number => Math.floor(CONNECTIONS / count) + (i < CONNECTIONS % count ? 1 : 0);
    const loadAll = (duration: number) => Promise.all(servers.map((server, i) => runLoad(server.baseUrl, loads[i]!, share(i), duration)));
    for (let round = 1; round <= rounds; round++) {
      await loadAll(warmUpSeconds);
      const service = servers.map((server) => server.cpuSeconds() ?? Number.NaN);
      const postgres = processCpu('postgres');
      const redisCpu = processCpu('redis-server');
      const measurements = await loadAll(seconds);
      const postgresSeconds = cpuBetween(postgres, processCpu('postgres')) ?? Number.NaN;
      const redisSeconds = cpuBetween(redisCpu, processCpu('redis-server')) ?? Number.NaN;
      const serviceSeconds = servers.reduce((sum, server, i) => sum + (server.cpuSeconds() ?? Number.NaN) - service[i]!, 0);
      const responses = measurements.reduce((sum, m) => sum + m.responses, 0);
      const rps = measurements.reduce((sum, m) => sum + m.requestsPerSecond, 0);
      row.non2xx += measurements.reduce((sum, m) => sum + Math.round(m.non2xxShare * m.responses) + m.errors, 0);
      row.requestsPerSecond.push(rps);
      row.serviceCpuUs.push((serviceSeconds * 1e6) / responses);
      row.postgresCpuUs.push((postgresSeconds * 1e6) / responses);
      row.redisCpuUs.push((redisSeconds * 1e6) / responses);
      console.log(
        `  ${count} instance(s), round ${round}: ${Math.round(rps).toLocaleString('en-US')} req/s ` +
          `(${measurements.map((m) => Math.round(m.requestsPerSecond).toLocaleString('en-US')).join(' + ')}), ` +
          `service CPU ${row.serviceCpuUs.at(-1)!.toFixed(0)} µs/req, PostgreSQL ${row.postgresCpuUs.at(-1)!.toFixed(0)}, Redis ${row.redisCpuUs.at(-1)!.toFixed(0)}`,
      );
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await database.drop();
    await deleteKeysUnder(redis, prefix);
  }
  rows.push(row);
}
redis.disconnect();

const integer = (value: number): string => Math.round(value).toLocaleString('en-US');
console.log(
  '\n| instances | total req/s median | min – max | service CPU µs/req | PostgreSQL CPU µs/req | PostgreSQL CPU s per s | Redis CPU µs/req | non-2xx + errors |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const row of rows) {
  const rps = median(row.requestsPerSecond);
  const pg = median(row.postgresCpuUs);
  console.log(
    `| ${row.instances} | ${integer(rps)} | ${integer(Math.min(...row.requestsPerSecond))} – ${integer(Math.max(...row.requestsPerSecond))} | ` +
      `${integer(median(row.serviceCpuUs))} | ${integer(pg)} | ${((rps * pg) / 1e6).toFixed(2)} | ${integer(median(row.redisCpuUs))} | ${row.non2xx} |`,
  );
}
