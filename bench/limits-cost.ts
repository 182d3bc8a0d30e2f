/**
 * What a credits rule and a concurrency cap cost a request on the list path, on each store:
 * three servers of the HTTP bench's `list` scenario (GET /v1/pets?limit=20, the never-limited
 * key) loaded together (bench/http/together.ts, the paired benches' method for three), each by
 * its own connections, their never-limited key under one of bench/http/limits-cost-plans.json's
 * plans: `limits-plain` (today's two rules), `limits-credits` (the same and a balance of 10^12
 * credits refilled monthly, which no bench spends: every request spends one credit) and
 * `limits-cap` (the same and a cap of 1,000 in flight, above the connections: every request
 * takes a slot and gives it back, none is refused). Prints each round's server CPU per request
 * and req/s, then per store the medians and the medians of the rounds' ratios credits / plain
 * and cap / plain. After the rounds it reads GET /v1/rate_limit, so a run shows the credits were
 * spent (one per response) and the slots given back. On PostgreSQL it also counts, per server,
 * its database's transactions (pg_stat_database) and its backends' CPU (/proc) per request.
 * Writes bench/results/limits-cost.json; a run of some stores (LIMITS_STORES) writes
 * bench/results/limits-cost-<stores>.json instead and leaves the full run's alone.
 *
 * Run with `npm run bench:limits-cost`. Environment: PAIR_ROUNDS (10), PAIR_SECONDS (3),
 * LIMITS_CONNECTIONS (17 each, about the scenario's 50 in all), LIMITS_STORES (memory,redis,postgres),
 * REDIS_URL (redis://127.0.0.1:6379), BENCH_PG_HOST / BENCH_PG_PORT / BENCH_PG_USER. A store whose
 * Redis or PostgreSQL does not answer, or whose servers do not start, is skipped and said so.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { namesFromEnv, positiveFromEnv } from './http/env.js';
import { UNLIMITED } from './http/keys.js';
import { pairSettingsFromEnv } from './http/operations-cost.js';
import { createBenchDatabase, postgresSetting, postgresVersion, processCpu, type BenchDatabase } from './http/postgres.js';
import { connectRedis, deleteKeysUnder, redisVersion } from './http/redis-stats.js';
import { median } from './http/report.js';
import { scenarios } from './http/scenarios.js';
import { serverSpecs, startServer, type RunningServer, type ServerSpec } from './http/servers.js';
import { measureTogether, type TogetherRound } from './http/together.js';
import type { Load } from './http/load.js';

const PLANS_FILE = fileURLToPath(new URL('../../bench/http/limits-cost-plans.json', import.meta.url));

const VARIANTS = [
  { id: 'plain', plan: 'limits-plain', label: 'two rules (as today)' },
  { id: 'credits', plan: 'limits-credits', label: 'two rules + credits (10^12, refill month)' },
  { id: 'cap', plan: 'limits-cap', label: 'two rules + concurrency cap (1000)' },
] as const;
type VariantId = (typeof VARIANTS)[number]['id'];

const STORES = ['memory', 'redis', 'postgres'] as const;
type Store = (typeof STORES)[number];

const settings = pairSettingsFromEnv(positiveFromEnv('LIMITS_CONNECTIONS', 17));
const stores = namesFromEnv('LIMITS_STORES', STORES);
const scenario = scenarios(VARIANTS.length * settings.connectionsEach).find((candidate) => candidate.id === 'list')!;

/** The commit measured, and whether its code (src/, bench/ but its README and results) differs from it. */
const commit = ((): string => {
  try {
    const status = execFileSync('git', ['status', '--porcelain', '--', 'src', 'bench', ':!bench/README.md', ':!bench/results'], { encoding: 'utf8' }).trim();
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    return status === '' ? head : `${head} + uncommitted changes`;
  } catch {
    return '?';
  }
})();

const redisUrl = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
const redis = stores.some((store) => store !== 'memory') ? await connectRedis(redisUrl) : undefined;
const pgVersion = redis !== undefined && stores.includes('postgres') ? await postgresVersion() : undefined;
const runPrefix = `petstore-limits:${randomBytes(4).toString('hex')}:`;
const pgHost = process.env['BENCH_PG_HOST'] || '127.0.0.1';
const pgPort = Number(process.env['BENCH_PG_PORT'] || '5432');
const pgUser = process.env['BENCH_PG_USER'] || 'postgres';

/** One variant's server of a store: the HTTP bench's server of that store, its never-limited key on the variant's plan. */
const specOf = (store: Store, variant: (typeof VARIANTS)[number], database: BenchDatabase | undefined): ServerSpec => {
  const base = serverSpecs({ url: redisUrl, prefix: `${runPrefix}${store}:${variant.id}:` }, true).find((spec) => spec.name === store);
  if (base === undefined) throw new Error(`no ${store} server in the HTTP bench`);
  // The database is created here rather than by startServer, to read its statistics by name.
  const { localDatabase: _created, ...spec } = base;
  return {
    ...spec,
    label: `${base.label}, ${variant.label}`,
    env: { ...base.env, PETSTORE_PLANS: PLANS_FILE, BENCH_UNLIMITED_PLAN: variant.plan, ...(database === undefined ? {} : { DATABASE_URL: database.url }) },
  };
};

/**
 * A store that cannot keep up answers some requests 503 (the PostgreSQL store, every request
 * spending one key's balance: they take turns on its row). A few such are measured and said so;
 * more, and the server is no longer measuring the list path: its store is reported unmeasured.
 */
const MAX_NON_2XX_SHARE = 0.01;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** GET /v1/rate_limit of the never-limited key: its credits and cap as the server keeps them. */
const standing = async (baseUrl: string): Promise<{ balance?: number; inFlight?: number; capLimit?: number }> => {
  const response = await fetch(`${baseUrl}/rate_limit`, { headers: { authorization: `Bearer ${UNLIMITED.key}` }, signal: AbortSignal.timeout(5_000) });
  const body = (await response.json()) as { credits?: { balance: number }; concurrency?: { limit: number; inFlight: number } };
  if (response.status !== 200) throw new Error(`GET /rate_limit answered ${response.status}`);
  return {
    ...(body.credits === undefined ? {} : { balance: body.credits.balance }),
    ...(body.concurrency === undefined ? {} : { inFlight: body.concurrency.inFlight, capLimit: body.concurrency.limit }),
  };
};

/** A database's transactions and its backends' CPU seconds so far, read from pg_stat_database and /proc. */
interface PostgresReading {
  readonly commits: number;
  readonly rollbacks: number;
  readonly backendCpu: ReadonlyMap<number, number>;
}

/** Idle backends flush their statistics within a second (PostgreSQL 15): read once the load has stopped for longer. */
const STATS_FLUSH_MS = 1_500;

const readPostgres = async (admin: postgres.Sql, database: BenchDatabase): Promise<PostgresReading> => {
  const [stats] = await admin<{ commits: string; rollbacks: string }[]>`
    SELECT xact_commit AS commits, xact_rollback AS rollbacks FROM pg_stat_database WHERE datname = ${database.name}`;
  const pids = await admin<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = ${database.name}`;
  const all = processCpu('postgres') ?? new Map<number, number>();
  const backendCpu = new Map(pids.flatMap(({ pid }) => (all.has(pid) ? [[pid, all.get(pid)!] as const] : [])));
  return { commits: Number(stats?.commits ?? 0), rollbacks: Number(stats?.rollbacks ?? 0), backendCpu };
};

interface VariantResult {
  readonly variant: VariantId;
  readonly label: string;
  readonly medianCpuUsPerRequest: number;
  readonly medianRequestsPerSecond: number;
  readonly minRequestsPerSecond: number;
  readonly maxRequestsPerSecond: number;
  /** Of its responses over the rounds; anything but 0 is said beside its figures. */
  readonly non2xxShare: number;
  /** The non-2xx answers over the rounds, by status; absent when there were none. */
  readonly non2xxStatuses?: Readonly<Record<string, number>>;
  /** Credits spent over the rounds per response counted: 1 when every request spends. */
  readonly creditsSpentPerResponse?: number;
  /** The cap's requests in flight once the load stopped: 0 when every slot was given back. */
  readonly capInFlightAfter?: number;
  readonly capLimit?: number;
  /** PostgreSQL store only: its database's transactions committed and rolled back, and its backends' CPU, per response over the rounds. */
  readonly postgresCommitsPerRequest?: number;
  readonly postgresRollbacksPerRequest?: number;
  readonly postgresCpuUsPerRequest?: number;
}

interface Ratio {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

interface StoreResult {
  readonly store: Store;
  readonly skipped?: string;
  readonly variants?: readonly VariantResult[];
  /** Medians of the rounds' ratios: server CPU per request, and req/s, of a variant over plain's. */
  readonly cpuRatios?: Readonly<Record<'creditsOverPlain' | 'capOverPlain', Ratio>>;
  readonly requestsPerSecondRatios?: Readonly<Record<'creditsOverPlain' | 'capOverPlain', Ratio>>;
  readonly rounds?: readonly TogetherRound[];
}

const non2xxStatusesOf = (rounds: readonly TogetherRound[], i: number): { non2xxStatuses?: Record<string, number> } => {
  const statuses: Record<string, number> = {};
  for (const round of rounds) {
    for (const [status, count] of Object.entries(round.statusCounts[i]!)) if (!status.startsWith('2')) statuses[status] = (statuses[status] ?? 0) + count;
  }
  return Object.keys(statuses).length === 0 ? {} : { non2xxStatuses: statuses };
};

const ratioOf = (values: readonly number[]): Ratio => ({ median: median(values), min: Math.min(...values), max: Math.max(...values) });

const VARIANT_INDEX: Readonly<Record<VariantId, number>> = { plain: 0, credits: 1, cap: 2 };

const ratiosOf = (rounds: readonly TogetherRound[], field: 'cpuUsPerRequest' | 'requestsPerSecond'): Record<'creditsOverPlain' | 'capOverPlain', Ratio> => {
  const over = (variant: VariantId): Ratio => ratioOf(rounds.map((round) => round[field][VARIANT_INDEX[variant]]! / round[field][VARIANT_INDEX.plain]!));
  return { creditsOverPlain: over('credits'), capOverPlain: over('cap') };
};

const whyNot = (store: Store): string | undefined => {
  if (store === 'memory') return undefined;
  if (redis === undefined) return `no Redis answered at ${redisUrl}`;
  if (store === 'postgres' && pgVersion === undefined) return `no PostgreSQL answered psql on ${pgHost}:${pgPort} (user ${pgUser})`;
  return undefined;
};

const measureStore = async (store: Store): Promise<StoreResult> => {
  const skipped = whyNot(store);
  if (skipped !== undefined) return { store, skipped };
  const databases: BenchDatabase[] = [];
  const running: { server: RunningServer; load: Load }[] = [];
  const admin = store === 'postgres' ? postgres({ host: pgHost, port: pgPort, user: pgUser, database: 'postgres', max: 1, onnotice: () => {} }) : undefined;
  try {
    for (const variant of VARIANTS) {
      const database = store === 'postgres' ? await createBenchDatabase() : undefined;
      if (database !== undefined) databases.push(database);
      const server = await startServer(specOf(store, variant, database));
      running.push({ server, load: await scenario.prepare(server.baseUrl, store) });
    }
    const credits = running[VARIANT_INDEX.credits]!.server;
    const cap = running[VARIANT_INDEX.cap]!.server;
    let balanceBefore: number | undefined;
    let pgBefore: PostgresReading[] = [];
    let after: { balance?: number; inFlight?: number; capLimit?: number; pg: PostgresReading[] } = { pg: [] };
    const rounds = await measureTogether(running, scenario, settings, {
      maxNon2xxShare: MAX_NON_2XX_SHARE,
      afterWarmUp: async () => {
        if (admin !== undefined) {
          await pause(STATS_FLUSH_MS);
          pgBefore = await Promise.all(databases.map((database) => readPostgres(admin, database)));
        }
        balanceBefore = (await standing(credits.baseUrl)).balance;
      },
      onRound: (round, { cpuUsPerRequest, requestsPerSecond }) =>
        console.log(
          `  round ${String(round).padStart(2)}: ` +
            VARIANTS.map(({ id }, i) => `${id} ${cpuUsPerRequest[i]!.toFixed(1)} µs/req (${Math.round(requestsPerSecond[i]!)} req/s)`).join(', ') +
            `; credits/plain ${(cpuUsPerRequest[1]! / cpuUsPerRequest[0]!).toFixed(3)}, cap/plain ${(cpuUsPerRequest[2]! / cpuUsPerRequest[0]!).toFixed(3)}`,
        ),
      afterRounds: async () => {
        await pause(admin === undefined ? 200 : STATS_FLUSH_MS);
        const pg = admin === undefined ? [] : await Promise.all(databases.map((database) => readPostgres(admin, database)));
        after = { ...(await standing(credits.baseUrl)), ...(await standing(cap.baseUrl)), pg };
      },
    });
    const responses = (i: number): number => rounds.reduce((sum, round) => sum + round.responses[i]!, 0);
    const variants = VARIANTS.map(({ id, label }, i): VariantResult => {
      const rps = rounds.map((round) => round.requestsPerSecond[i]!);
      const pgStart = pgBefore[i];
      const pgEnd = after.pg[i];
      let pgCpu = 0;
      if (pgEnd !== undefined) for (const [pid, seconds] of pgEnd.backendCpu) pgCpu += seconds - (pgStart?.backendCpu.get(pid) ?? 0);
      return {
        variant: id,
        label,
        medianCpuUsPerRequest: median(rounds.map((round) => round.cpuUsPerRequest[i]!)),
        medianRequestsPerSecond: median(rps),
        minRequestsPerSecond: Math.min(...rps),
        maxRequestsPerSecond: Math.max(...rps),
        non2xxShare: rounds.reduce((sum, round) => sum + round.non2xxShare[i]! * round.responses[i]!, 0) / responses(i),
        ...non2xxStatusesOf(rounds, i),
        ...(id === 'credits' && balanceBefore !== undefined && after.balance !== undefined
          ? { creditsSpentPerResponse: (balanceBefore - after.balance) / responses(i) }
          : {}),
        ...(id === 'cap' && after.inFlight !== undefined ? { capInFlightAfter: after.inFlight, capLimit: after.capLimit! } : {}),
        ...(pgStart !== undefined && pgEnd !== undefined
          ? {
              postgresCommitsPerRequest: (pgEnd.commits - pgStart.commits) / responses(i),
              postgresRollbacksPerRequest: (pgEnd.rollbacks - pgStart.rollbacks) / responses(i),
              postgresCpuUsPerRequest: (pgCpu * 1e6) / responses(i),
            }
          : {}),
      };
    });
    return { store, variants, cpuRatios: ratiosOf(rounds, 'cpuUsPerRequest'), requestsPerSecondRatios: ratiosOf(rounds, 'requestsPerSecond'), rounds };
  } catch (error) {
    // The other stores' figures stand; this one's reason is printed and kept.
    return { store, skipped: `its servers could not be measured: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
  } finally {
    await Promise.all(running.map(({ server }) => server.stop()));
    for (const database of databases) await database.drop();
    await admin?.end();
  }
};

const ratioText = ({ median: mid, min, max }: Ratio): string => `${mid.toFixed(3)} (rounds ${min.toFixed(3)} to ${max.toFixed(3)})`;

const summary = (result: StoreResult): string => {
  if (result.variants === undefined || result.cpuRatios === undefined || result.requestsPerSecondRatios === undefined) return `  not measured: ${result.skipped}`;
  const lines = result.variants.map((variant) => {
    const checks = [
      variant.non2xxShare === 0 ? '' : `, ${(variant.non2xxShare * 100).toFixed(2)}% non-2xx ${JSON.stringify(variant.non2xxStatuses ?? {})}`,
      variant.creditsSpentPerResponse === undefined ? '' : `, ${variant.creditsSpentPerResponse.toFixed(3)} credits spent per response`,
      variant.capInFlightAfter === undefined ? '' : `, ${variant.capInFlightAfter} of ${variant.capLimit} in flight after the load`,
      variant.postgresCommitsPerRequest === undefined
        ? ''
        : `, PostgreSQL ${variant.postgresCommitsPerRequest.toFixed(2)} commits, ${variant.postgresRollbacksPerRequest!.toFixed(2)} rollbacks ` +
          `and ${variant.postgresCpuUsPerRequest!.toFixed(1)} µs CPU per request`,
    ].join('');
    return (
      `  ${variant.label.padEnd(42)} ${variant.medianCpuUsPerRequest.toFixed(1).padStart(6)} µs/req, ` +
      `${Math.round(variant.medianRequestsPerSecond).toLocaleString('en-US').padStart(6)} req/s (${Math.round(variant.minRequestsPerSecond)} to ${Math.round(variant.maxRequestsPerSecond)})${checks}`
    );
  });
  return [
    ...lines,
    `  CPU per request: credits / plain ${ratioText(result.cpuRatios.creditsOverPlain)}, cap / plain ${ratioText(result.cpuRatios.capOverPlain)}`,
    `  req/s: credits / plain ${ratioText(result.requestsPerSecondRatios.creditsOverPlain)}, cap / plain ${ratioText(result.requestsPerSecondRatios.capOverPlain)}`,
  ].join('\n');
};

console.log(
  `${scenario.title}: a plan of two rules, the same + credits, the same + a concurrency cap, loaded together, ` +
    `${settings.connectionsEach} connections each, ${settings.rounds} rounds of ${settings.seconds} s after ${settings.warmUpSeconds} s of warm-up; commit ${commit}`,
);
const results: StoreResult[] = [];
try {
  for (const store of stores) {
    console.log(`\n${store}:`);
    const result = await measureStore(store);
    results.push(result);
    console.log(summary(result));
  }
} finally {
  if (redis !== undefined) {
    await deleteKeysUnder(redis, runPrefix);
  }
}

const pgSettings = pgVersion === undefined ? undefined : `${pgVersion}, synchronous_commit=${await postgresSetting('synchronous_commit')}`;
const stored = {
  generatedAt: new Date().toISOString(),
  commit,
  command: ['PAIR_ROUNDS', 'PAIR_SECONDS', 'LIMITS_CONNECTIONS', 'LIMITS_STORES']
    .filter((name) => process.env[name] !== undefined)
    .map((name) => `${name}=${process.env[name]}`)
    .concat('npm run bench:limits-cost')
    .join(' '),
  machine: {
    cpu: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`,
    node: process.version,
    redis: redis === undefined ? 'not available' : await redisVersion(redis),
    postgres: pgSettings ?? 'not measured',
  },
  scenario: scenario.title,
  plans: 'bench/http/limits-cost-plans.json',
  settings,
  stores: results,
};
redis?.disconnect();
const partial = process.env['LIMITS_STORES'] !== undefined;
const RESULTS_FILE = fileURLToPath(new URL(`../../bench/results/limits-cost${partial ? `-${stores.join('-')}` : ''}.json`, import.meta.url));
mkdirSync(dirname(RESULTS_FILE), { recursive: true });
writeFileSync(RESULTS_FILE, `${JSON.stringify(stored, null, 2)}\n`);
console.log(`\nWrote ${RESULTS_FILE}.`);
