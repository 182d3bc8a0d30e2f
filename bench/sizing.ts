/**
 * The sizing line of docs/operating.md: memory per process and per 100,000 active keys.
 * - The standalone server (the CLI, one worker, admin listener on) on each store, idle after a
 *   warm-up of list requests: its RSS (/proc) and V8 heap (its own /metrics), beside a bare node
 *   process started in the same round (`node -e` waiting on a timer).
 * - 100,000 keys' quota state in process (MemoryQuotaStore, two rules: bench/quota-memory.ts,
 *   which bench:quota-engine reports too), beside a Map of a count and a time per key.
 * - Redis `used_memory` added by 100,000 keys' quota hashes (RedisQuotaStore, the same two
 *   rules) under a prefix of its own, deleted after, beside 100,000 one-field hashes.
 * Rounds interleaved (BENCH_ROUNDS, 3): medians and ranges.
 *
 * `npm run bench:sizing` (`node --expose-gc dist/bench/sizing.js`). REDIS_URL (redis://127.0.0.1:6379)
 * and psql's PostgreSQL (bench/http/postgres.ts); without them those rows are skipped, and said so.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { RedisQuotaStore } from '../src/adapters/redis/redis-quota-store.js';
import { stopChild } from './http/child-process.js';
import { startCliServer } from './http/cli-server.js';
import { positiveFromEnv } from './http/env.js';
import { UNLIMITED } from './http/keys.js';
import { createBenchDatabase, postgresVersion } from './http/postgres.js';
import { connectRedis, deleteKeysUnder, redisVersion } from './http/redis-stats.js';
import { median } from './http/report.js';
import { counterMapBytesPerKey, keySubjects, MEMORY_KEYS, quotaBytesPerKey, TWO_RULES } from './quota-memory.js';

const rounds = positiveFromEnv('BENCH_ROUNDS', 3);
/** List requests each server answers before it is measured: its code paths compiled, its buffers grown. */
const WARM_UP_REQUESTS = 500;
/** After the warm-up: the timers of a quiet server (log batches, keep-alive sockets) have run out. */
const SETTLE_MS = 2_000;
const MIB = 1024 * 1024;
const redisUrl = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
const self = fileURLToPath(import.meta.url);

/** A process's resident set in bytes, from /proc (VmRSS). */
const rssOf = (pid: number): number => {
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) * 1024;
};

interface ProcessMemory {
  readonly rss: number;
  /** V8's heap in use; undefined for the bare node process, which has no /metrics. */
  readonly heap: number | undefined;
}

const bareNode = async (): Promise<ProcessMemory> => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  try {
    await sleep(SETTLE_MS);
    return { rss: rssOf(child.pid!), heap: undefined };
  } finally {
    await stopChild(child, 5_000);
  }
};

/** The CLI on a store: warmed up, settled, then measured. */
const server = async (label: string, env: Readonly<Record<string, string>>): Promise<ProcessMemory> => {
  const started = await startCliServer(label, { PETSTORE_ADMIN_PORT: '0', ...env });
  const child: ChildProcess = started.child;
  try {
    const headers = { authorization: `Bearer ${UNLIMITED.key}` };
    for (let sent = 0; sent < WARM_UP_REQUESTS; sent += 10) {
      await Promise.all(Array.from({ length: 10 }, async () => (await fetch(`${started.baseUrl}/pets?limit=20`, { headers })).arrayBuffer()));
    }
    await sleep(SETTLE_MS);
    const metrics = await (await fetch(`${started.adminUrl}/metrics`)).text();
    const heap = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(metrics)?.[1];
    if (heap === undefined) throw new Error(`${label}: no nodejs_heap_size_used_bytes in /metrics`);
    return { rss: rssOf(child.pid!), heap: Number(heap) };
  } finally {
    await stopChild(child, 15_000);
  }
};

/** `used_memory` of the Redis server, in bytes. */
const usedMemory = async (redis: Redis): Promise<number> => Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1]);

interface RedisBytes {
  /** used_memory added per key while writing. */
  readonly added: number;
  /** used_memory freed per key by deleting them again: the same figure when nothing else wrote meanwhile. */
  readonly freed: number;
}

/** used_memory per key of what `write` stores under `prefix`, and what deleting it frees. */
const redisBytesPerKey = async (redis: Redis, prefix: string, write: (subjects: readonly string[]) => Promise<void>): Promise<RedisBytes> => {
  const subjects = keySubjects();
  const before = await usedMemory(redis);
  try {
    await write(subjects);
    const after = await usedMemory(redis);
    const deleted = await deleteKeysUnder(redis, prefix);
    if (deleted !== subjects.length) throw new Error(`${prefix}: ${deleted} keys deleted, ${subjects.length} written`);
    return { added: (after - before) / subjects.length, freed: (after - (await usedMemory(redis))) / subjects.length };
  } finally {
    await deleteKeysUnder(redis, prefix);
  }
};

/** In batches: a few thousand decisions in flight, as many keys' requests would be. */
const inBatches = async (subjects: readonly string[], each: (subject: string) => Promise<unknown>): Promise<void> => {
  for (let i = 0; i < subjects.length; i += 2_000) await Promise.all(subjects.slice(i, i + 2_000).map(each));
};

const quotaHashes = (redis: Redis, prefix: string): Promise<RedisBytes> => {
  const store = new RedisQuotaStore(redis, { prefix });
  return redisBytesPerKey(redis, prefix, (subjects) => inBatches(subjects, (subject) => store.decide(subject, TWO_RULES)));
};

const oneFieldHashes = (redis: Redis, prefix: string): Promise<RedisBytes> =>
  redisBytesPerKey(redis, prefix, (subjects) => inBatches(subjects, (subject) => redis.hset(`${prefix}{q:${subject}}`, 'n', '1')));

interface InProcess {
  readonly quota: number;
  readonly counterMap: number;
}

if (process.argv[2] === 'in-process') {
  // A child with --expose-gc: each figure starts from a collected heap, the other's store gone.
  const quota = quotaBytesPerKey();
  const counterMap = counterMapBytesPerKey();
  console.log(JSON.stringify({ quota, counterMap }));
} else {
  const inProcess = (): InProcess => JSON.parse(execFileSync(process.execPath, ['--expose-gc', self, 'in-process'], { encoding: 'utf8' })) as InProcess;
  const redis = await connectRedis(redisUrl);
  const postgres = await postgresVersion();
  const runId = randomBytes(4).toString('hex');
  console.log(
    `Memory per process and per ${MEMORY_KEYS.toLocaleString('en-US')} keys: ${rounds} interleaved rounds, node ${process.version}, ` +
      `${redis === undefined ? `no Redis at ${redisUrl} (its rows skipped)` : `Redis ${await redisVersion(redis)}`}, ` +
      `${postgres === undefined ? 'no PostgreSQL (its row skipped)' : `PostgreSQL ${postgres}`}.\n`,
  );

  const processes = new Map<string, ProcessMemory[]>();
  const keep = (label: string, measured: ProcessMemory): void => void processes.set(label, [...(processes.get(label) ?? []), measured]);
  const perKey = { quota: [] as number[], counterMap: [] as number[], redisQuota: [] as RedisBytes[], redisOneField: [] as RedisBytes[] };
  try {
    for (let round = 1; round <= rounds; round++) {
      keep('bare node (reference)', await bareNode());
      keep('memory store', await server('memory', {}));
      if (redis !== undefined) {
        const prefix = `petstore-bench:${runId}:sizing:${round}:`;
        try {
          keep('Redis store', await server('redis', { PETSTORE_STORE: 'redis', REDIS_URL: redisUrl, PETSTORE_REDIS_PREFIX: prefix }));
          if (postgres !== undefined) {
            const database = await createBenchDatabase();
            try {
              const env = { PETSTORE_STORE: 'postgres', DATABASE_URL: database.url, REDIS_URL: redisUrl, PETSTORE_REDIS_PREFIX: `${prefix}pg:` };
              keep('PostgreSQL store (+ Redis counters)', await server('postgres', env));
            } finally {
              await database.drop();
            }
          }
        } finally {
          await deleteKeysUnder(redis, prefix);
        }
        perKey.redisQuota.push(await quotaHashes(redis, `${prefix}quota:`));
        perKey.redisOneField.push(await oneFieldHashes(redis, `${prefix}one-field:`));
      }
      const measured = inProcess();
      if (Number.isFinite(measured.quota) && Number.isFinite(measured.counterMap)) {
        perKey.quota.push(measured.quota);
        perKey.counterMap.push(measured.counterMap);
      }
      process.stderr.write(`round ${round} of ${rounds} done\n`);
    }
  } finally {
    redis?.disconnect();
  }

  const spread = (values: readonly number[], unit: number, digits: number): string =>
    `${(median(values) / unit).toFixed(digits)} (${(Math.min(...values) / unit).toFixed(digits)} – ${(Math.max(...values) / unit).toFixed(digits)})`;
  const bare = median(processes.get('bare node (reference)')!.map(({ rss }) => rss));
  console.log('| process, idle after 500 list requests | RSS MiB, median (range) | V8 heap used MiB | RSS / bare node |');
  console.log('|---|---:|---:|---:|');
  for (const [label, measured] of processes) {
    const heaps = measured.flatMap(({ heap }) => (heap === undefined ? [] : [heap]));
    const rss = measured.map((one) => one.rss);
    console.log(`| ${label} | ${spread(rss, MIB, 1)} | ${heaps.length === 0 ? '–' : spread(heaps, MIB, 1)} | ${(median(rss) / bare).toFixed(2)} |`);
  }

  const per100k = MEMORY_KEYS / MIB;
  console.log(`\n| ${MEMORY_KEYS.toLocaleString('en-US')} keys, two rules each | MiB, median (range) | bytes per key | reference | MiB | quota / reference |`);
  console.log('|---|---:|---:|---|---:|---:|');
  if (perKey.quota.length === 0) console.log('| in process | not measured: the child had no --expose-gc | | | | |');
  else {
    console.log(
      `| in process (MemoryQuotaStore, JS heap + buffers) | ${spread(perKey.quota, 1 / per100k, 1)} | ${median(perKey.quota).toFixed(0)} | ` +
        `Map of a count and a time per key | ${(median(perKey.counterMap) * per100k).toFixed(1)} | ${(median(perKey.quota) / median(perKey.counterMap)).toFixed(2)} |`,
    );
  }
  if (perKey.redisQuota.length > 0) {
    const added = perKey.redisQuota.map(({ added: bytes }) => bytes);
    const freed = perKey.redisQuota.map(({ freed: bytes }) => bytes);
    const reference = median(perKey.redisOneField.map(({ added: bytes }) => bytes));
    console.log(
      `| Redis used_memory (RedisQuotaStore's hashes) | ${spread(added, 1 / per100k, 1)} | ${median(added).toFixed(0)} (freed on delete: ${median(freed).toFixed(0)}) | ` +
        `a one-field hash per key | ${(reference * per100k).toFixed(1)} | ${(median(added) / reference).toFixed(2)} |`,
    );
  }
}
