/**
 * `npm run bench:accuracy`: how exact each limiter is. This service's createRateLimiter beside
 * express-rate-limit, @fastify/rate-limit and rate-limiter-flexible, each on its memory store
 * and on Redis, under traffic shapes that expose errors (a burst at a window boundary, steady
 * load at the limit, two and four instances on one Redis, 1 and 5 ms of injected Redis latency,
 * a step of the process's clock), then one fast-check property against each. Writes
 * bench/results/accuracy.json and .svg and the guide's section (bench/README.md).
 *
 * Every request goes to a limiter in this process or to Redis on 127.0.0.1 (REDIS_URL); without
 * a Redis, the memory stores only, and the run says so. Redis keys live under a prefix of the
 * run's own, deleted after. About 3 minutes on 2 cores; BENCH_ACCURACY_QUICK=1 about one.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { createRedisClient } from '../src/adapters/redis/redis-client.js';
import { startLatencyProxy, type LatencyProxy } from './accuracy/latency-proxy.js';
import { LIMITERS, type Instance, type LimiterKind, type StoreName } from './accuracy/limiters.js';
import { accuracyOf } from './accuracy/measure.js';
import { checkProperty, type LimiterProperty } from './accuracy/property.js';
import { renderChart, renderProperties, renderSection, renderTable, SECTION_BEGIN, SECTION_END, type AccuracyResults, type PropertyRow, type Row } from './accuracy/report.js';
import { boundaryBurst, burstThenSteady, play, steadyAtLimit, stepProcessClock, twiceTheLimit, type Send, type Traffic } from './accuracy/shapes.js';

const QUICK = process.env['BENCH_ACCURACY_QUICK'] === '1';
/** This service's windows are whole multiples of 3 s; the peers take any. */
const TRAFFIC: Traffic = { limit: 50, windowMs: 3_000, edgeMs: 150, steadyWindows: QUICK ? 1 : 2 };
/** Slack for the clocks themselves: a limiter's whole milliseconds against performance.now() (see accuracyOf). */
const TOLERANCE_MS = 1;
const THROUGHPUT_MS = QUICK ? 300 : 500;
/** Rounds of every limiter in turn, the median kept: a machine shared with others is slower at some moments than at others. */
const THROUGHPUT_ROUNDS = QUICK ? 1 : 3;
const THROUGHPUT_IN_FLIGHT = 32;
const REDIS_URL = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
const PREFIX = `accuracy-bench:${randomBytes(6).toString('hex')}:`;

interface Setting {
  readonly instances: number;
  readonly latencyMs: number;
}

interface Shape {
  readonly id: string;
  readonly label: string;
  readonly stores: readonly StoreName[];
  readonly setting: Setting;
  readonly schedule: (traffic: Traffic) => Send[];
  /** The process's clock jumps this far forward at this time, ms. */
  readonly clockStep?: { readonly atMs: number; readonly byMs: number };
}

const BOTH: readonly StoreName[] = ['memory', 'redis'];
const ONE: Setting = { instances: 1, latencyMs: 0 };
const SHAPES: readonly Shape[] = [
  { id: 'boundary', label: 'burst at the window boundary', stores: BOTH, setting: ONE, schedule: (t) => boundaryBurst(t) },
  { id: 'steady', label: 'steady at the limit', stores: BOTH, setting: ONE, schedule: (t) => steadyAtLimit(t) },
  { id: 'two-instances', label: 'two instances, burst then steady', stores: ['redis'], setting: { instances: 2, latencyMs: 0 }, schedule: (t) => burstThenSteady(t, 2) },
  { id: 'four-instances', label: 'four instances, burst then steady', stores: ['redis'], setting: { instances: 4, latencyMs: 0 }, schedule: (t) => burstThenSteady(t, 4) },
  { id: 'latency-1ms', label: 'Redis +1 ms, burst then steady', stores: ['redis'], setting: { instances: 1, latencyMs: 1 }, schedule: (t) => burstThenSteady(t, 1) },
  { id: 'latency-5ms', label: 'Redis +5 ms, burst then steady', stores: ['redis'], setting: { instances: 1, latencyMs: 5 }, schedule: (t) => burstThenSteady(t, 1) },
  {
    id: 'clock-step',
    label: 'clock steps +1 window, twice the limit',
    stores: BOTH,
    setting: ONE,
    schedule: (t) => twiceTheLimit(t, 2),
    // Once the first window is full: a limiter whose clock jumps forgets it.
    clockStep: { atMs: TRAFFIC.windowMs / 2 + 100, byMs: TRAFFIC.windowMs },
  },
];

/** Redis clients and latency proxies opened for a setting, closed with it. */
class Connections {
  readonly #clients: Redis[] = [];
  readonly #proxies: LatencyProxy[] = [];

  async client(latencyMs: number): Promise<Redis> {
    let url = REDIS_URL;
    if (latencyMs > 0) {
      const proxy = await startLatencyProxy(REDIS_URL, latencyMs);
      this.#proxies.push(proxy);
      url = proxy.url;
    }
    // Generous: the bench measures decisions, and a loaded machine must not turn them into timeouts.
    const client = await createRedisClient({ url, commandTimeoutMs: 5_000 });
    this.#clients.push(client);
    return client;
  }

  async close(): Promise<void> {
    await Promise.all(this.#clients.map((client) => client.quit()));
    await Promise.all(this.#proxies.map((proxy) => proxy.close()));
  }
}

/** `setting.instances` instances of `kind` on `store`, each with its own Redis client (and proxy). */
const instancesOf = async (kind: LimiterKind, store: StoreName, setting: Setting, limit: number, connections: Connections): Promise<Instance[]> => {
  const instances: Instance[] = [];
  for (let i = 0; i < setting.instances; i++) {
    const redis = store === 'redis' ? await connections.client(setting.latencyMs) : undefined;
    instances.push(await kind.create({ store, limit, windowMs: TRAFFIC.windowMs, prefix: PREFIX, ...(redis === undefined ? {} : { redis }) }));
  }
  return instances;
};

/** Decisions per second of `kind` in a setting: a limit out of reach, THROUGHPUT_IN_FLIGHT calls at a time on one subject, round robin over the instances. */
const throughput = async (kind: LimiterKind, store: StoreName, setting: Setting): Promise<number> => {
  const connections = new Connections();
  try {
    const instances = await instancesOf(kind, store, setting, 1_000_000_000, connections);
    const subject = `throughput:${store}:${setting.instances}:${setting.latencyMs}`;
    let done = 0;
    const start = performance.now();
    const until = start + THROUGHPUT_MS;
    await Promise.all(
      Array.from({ length: THROUGHPUT_IN_FLIGHT }, async (_, lane) => {
        let turn = lane;
        while (performance.now() < until) {
          await instances[turn++ % instances.length]!.check(subject);
          done++;
        }
      }),
    );
    const rate = done / ((performance.now() - start) / 1000);
    await Promise.all(instances.map((instance) => instance.close()));
    return rate;
  } finally {
    await connections.close();
  }
};

/** One shape on one store: the four limiters at once, each on a subject of its own. */
const runShape = async (shape: Shape, store: StoreName): Promise<Omit<Row, 'decisionsPerSecond' | 'setting'>[]> => {
  const connections = new Connections();
  const clock = shape.clockStep === undefined ? undefined : stepProcessClock();
  try {
    const all = await Promise.all(LIMITERS.map((kind) => instancesOf(kind, store, shape.setting, TRAFFIC.limit, connections)));
    const schedule = shape.schedule(TRAFFIC);
    let stepped = false;
    const during = (elapsedMs: number): void => {
      if (clock === undefined || shape.clockStep === undefined || stepped || elapsedMs < shape.clockStep.atMs) return;
      stepped = true;
      clock.step(shape.clockStep.byMs);
    };
    const played = await Promise.all(LIMITERS.map((kind, k) => play(schedule, all[k]!, `${shape.id}:${kind.id}`, during)));
    await Promise.all(all.flat().map((instance) => instance.close()));
    return LIMITERS.map((kind, k) => {
      const { decisions, failed } = played[k]!;
      return {
        limiter: kind.id,
        limiterLabel: kind.label,
        store,
        storeLabel: kind.stores[store],
        shape: shape.id,
        shapeLabel: shape.label,
        ...accuracyOf(decisions, TRAFFIC.limit, TRAFFIC.windowMs, TOLERANCE_MS),
        sent: schedule.length,
        failed,
      };
    });
  } finally {
    clock?.restore();
    await connections.close();
  }
};

const LIMITER_PROPERTIES: readonly LimiterProperty[] = ['agrees with the model', 'keeps to the limit'];

/** The properties against each limiter and store: driven clocks on the memory stores and this service's Redis store, the real one for the peers on Redis. */
const runProperties = async (stores: readonly StoreName[]): Promise<PropertyRow[]> => {
  const rows: PropertyRow[] = [];
  const seed = Number(process.env['BENCH_ACCURACY_SEED'] ?? 40);
  const limit = 5;
  const connections = new Connections();
  try {
    for (const property of LIMITER_PROPERTIES) {
      for (const kind of LIMITERS) {
        for (const store of stores) {
          if (store === 'redis' && !kind.takesClock) continue;
          const virtual = { now: Date.now() };
          const redis = store === 'redis' ? await connections.client(0) : undefined;
          const instance = await kind.create({
            store,
            limit,
            windowMs: TRAFFIC.windowMs,
            prefix: `${PREFIX}property:`,
            ...(redis === undefined ? {} : { redis, clock: { now: () => virtual.now } }),
          });
          const result = await checkProperty(
            instance,
            { property, clock: 'driven', limit, windowMs: TRAFFIC.windowMs, numRuns: QUICK ? 30 : 200, maxSteps: 40, seed },
            virtual,
            store === 'memory',
          );
          await instance.close();
          rows.push({ ...result, limiter: kind.id, limiterLabel: kind.label, store, storeLabel: kind.stores[store] });
        }
      }
    }
    if (stores.includes('redis')) {
      // The peers on Redis: key expiry runs on Redis's clock, so on the real one, few steps a schedule, all three at once.
      const peers = LIMITERS.filter((kind) => !kind.takesClock);
      for (const property of LIMITER_PROPERTIES) {
        const real = await Promise.all(
          peers.map(async (kind) => {
            const redis = await connections.client(0);
            const instance = await kind.create({ store: 'redis', limit, windowMs: TRAFFIC.windowMs, prefix: `${PREFIX}property:`, redis });
            const result = await checkProperty(
              instance,
              { property, clock: 'real', limit, windowMs: TRAFFIC.windowMs, numRuns: QUICK ? 5 : 25, maxSteps: 6, timeLimitMs: QUICK ? 15_000 : 60_000, seed },
              { now: 0 },
              false,
            );
            await instance.close();
            return { ...result, limiter: kind.id, limiterLabel: kind.label, store: 'redis' as const, storeLabel: kind.stores.redis };
          }),
        );
        rows.push(...real);
      }
    }
  } finally {
    await connections.close();
  }
  return rows;
};

/** Deletes every key of this run's prefix, and only those. */
const deleteOwnKeys = async (): Promise<number> => {
  const redis = await createRedisClient({ url: REDIS_URL, commandTimeoutMs: 5_000 });
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
  return deleted;
};

const redisAnswers = async (): Promise<boolean> => {
  try {
    const redis = await createRedisClient({ url: REDIS_URL, commandTimeoutMs: 2_000 });
    await redis.ping();
    await redis.quit();
    return true;
  } catch {
    return false;
  }
};

/** Where a peer wins, and where this service's limiter errs, said from the figures of this run. */
const verdictOf = (rows: readonly Row[]): string => {
  const lines: string[] = [];
  const fastest = new Map<string, Row>();
  for (const row of rows) {
    if (row.decisionsPerSecond === null) continue;
    const key = row.setting;
    const best = fastest.get(key);
    if (best === undefined || row.decisionsPerSecond > best.decisionsPerSecond!) fastest.set(key, row);
  }
  const ownRows = rows.filter((row) => row.limiter === 'own');
  const exactPeers = rows.filter((row) => row.limiter !== 'own' && row.peakExcess === 0 && row.underAdmissions === 0);
  const ownOver = ownRows.filter((row) => row.peakExcess > 0);
  const ownUnder = ownRows.filter((row) => row.underAdmissions > 0);
  const under = ownUnder.reduce((sum, row) => sum + row.underAdmissions, 0);
  lines.push(
    `- **This service's limiter** admitted over the limit ${
      ownOver.length === 0 ? 'in no shape' : `only in ${ownOver.map((row) => `${row.shapeLabel} on ${row.store} (+${row.peakExcess})`).join(', ')}`
    }; it refused under the limit ${under} times in ${ownUnder.length} of its ${ownRows.length} runs${
      ownUnder.length === 0 ? '' : ` (at most ${Math.max(...ownUnder.map((row) => row.underAdmissions))} in one), a sub-window's delay: see the notes below`
    }.`,
  );
  const overPeers = rows.filter((row) => row.limiter !== 'own' && row.peakExcess > 0);
  if (overPeers.length > 0) {
    const worst = overPeers.reduce((a, b) => (b.peakExcess > a.peakExcess ? b : a));
    lines.push(`- **Over-admission by the peers**: ${overPeers.length} of their ${rows.filter((row) => row.limiter !== 'own').length} runs; at worst ${worst.limiterLabel} (${worst.storeLabel}), ${worst.shapeLabel}: ${TRAFFIC.limit + worst.peakExcess} admitted within one rolling window of ${TRAFFIC.limit}.`);
  }
  if (exactPeers.length > 0) {
    const byShape = new Map<string, string[]>();
    for (const row of exactPeers) byShape.set(row.shapeLabel, [...(byShape.get(row.shapeLabel) ?? []), `${row.limiterLabel} (${row.storeLabel})`]);
    lines.push(`- **Where a peer is exact too**: ${[...byShape].map(([shape, peers]) => `${shape}: ${peers.join(', ')}`).join('; ')}.`);
  }
  const peerWins = [...fastest.values()].filter((row) => row.limiter !== 'own');
  if (peerWins.length > 0) {
    lines.push(
      `- **Where a peer is faster** (decisions/s, the fastest in each setting; figures of a shared machine, repeat before trusting a few percent): ${peerWins
        .map((row) => {
          const own = ownRows.find((o) => o.setting === row.setting);
          const ownRate = own?.decisionsPerSecond === null || own === undefined ? 'n/a' : Math.round(own.decisionsPerSecond);
          return `${row.setting}: ${row.limiterLabel} (${row.storeLabel}) ${Math.round(row.decisionsPerSecond!)} decisions/s against this service's ${ownRate}`;
        })
        .join('; ')}.`,
    );
  }
  return lines.join('\n');
};

const main = async (): Promise<void> => {
  const started = performance.now();
  const hasRedis = await redisAnswers();
  const notes: string[] = [];
  if (!hasRedis) {
    notes.push(`No Redis answered at ${REDIS_URL}: the memory stores only.`);
    console.error(notes[0]);
  }
  const stores: StoreName[] = hasRedis ? ['memory', 'redis'] : ['memory'];
  const settingKey = (kind: LimiterKind, store: StoreName, setting: Setting): string => `${kind.id}|${store}|${setting.instances}|${setting.latencyMs}`;
  const measured = new Map<string, { kind: LimiterKind; store: StoreName; setting: Setting; rates: number[] }>();
  for (const shape of SHAPES) {
    for (const store of shape.stores) {
      if (!stores.includes(store)) continue;
      for (const kind of LIMITERS) measured.set(settingKey(kind, store, shape.setting), { kind, store, setting: shape.setting, rates: [] });
    }
  }
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    for (const entry of measured.values()) entry.rates.push(await throughput(entry.kind, entry.store, entry.setting));
  }
  const settings = new Map<string, number>();
  for (const [key, { rates }] of measured) {
    const sorted = [...rates].sort((a, b) => a - b);
    settings.set(key, sorted[Math.floor(sorted.length / 2)]!);
    console.error(`throughput ${key}: ${sorted.map(Math.round).join(' ')}/s`);
  }
  const rows: Row[] = [];
  try {
    for (const shape of SHAPES) {
      for (const store of shape.stores) {
        if (!stores.includes(store)) continue;
        console.error(`shape ${shape.id} on ${store}…`);
        for (const row of await runShape(shape, store)) {
          const kind = LIMITERS.find((k) => k.id === row.limiter)!;
          const { instances, latencyMs } = shape.setting;
          const setting = `${store}${instances > 1 ? `, ${instances} instances` : ''}${latencyMs > 0 ? `, +${latencyMs} ms` : ''}`;
          rows.push({ ...row, setting, decisionsPerSecond: settings.get(settingKey(kind, store, shape.setting)) ?? null });
        }
      }
    }
    console.error('the property…');
    const properties = await runProperties(stores);
    notes.push(
      'Every limiter is called in this process: this service\'s `limiter.check`, rate-limiter-flexible\'s `consume`, express-rate-limit\'s middleware handed a request and a response of our own (next() admits, the handler refuses), ' +
        '@fastify/rate-limit through `app.inject` (a plugin only, asked without a socket). Redis on 127.0.0.1; latency injected by a TCP proxy that holds each chunk to Redis 1 or 5 ms.',
      'Instances: separate limiter objects, each with its own Redis client, on one Redis prefix, requests dealt to them in turn, all in flight at once. The memory stores are per process, so they are not run as instances.',
      'The clock step moves Date.now() forward one window in this process (as an NTP step would), which every memory store here reads (this service\'s through the clock it is given). ' +
        'It moves neither Redis\'s TIME nor its key expiry: this service\'s RedisQuotaStore reads the Redis server\'s TIME by default, and the peers\' Redis stores count with key expiry, so none of the Redis rows can move.',
      'Steady at the limit sends one request every 60 ms: exactly the limit, so a timer that fires late and the next on time put 51 sends within 3 s. An exact limiter refuses one of them ' +
        '(not counted as refused under the limit: the window did hold 50); a fixed window admits it, the +1 of some rows. Such ±1 come and go from run to run on a loaded machine.',
      'This service\'s limiter counts the oldest of its 60 sub-windows whole (src/domain/quota/sliding-window-counter.ts): never over the limit, but it may refuse for up to one sub-window ' +
        `(${TRAFFIC.windowMs / 60} ms here) after a rolling window fell below the limit: the one or two refusals under the limit in its rows.`,
      'Each call of a burst starts in a turn of the event loop of its own, as HTTP requests arrive. Started in one turn, express-rate-limit\'s MemoryStore and @fastify/rate-limit\'s local store ' +
        'refuse a burst whole: both hand back their counter object itself, which the middleware reads after every call of the turn has added to it (a burst of 50 on 1 counted: all 50 see 51).',
      'decisions/s: the same limiter with a limit out of reach (every call admitted), 32 calls in flight on one subject, in the shape\'s setting (store, instances, latency), each limiter alone, ' +
        `the median of ${THROUGHPUT_ROUNDS} rounds of ${THROUGHPUT_MS} ms taken in turn: the speed of the check, not of an HTTP server. ` +
        '@fastify/rate-limit\'s figure is a whole fastify request through `app.inject` (light-my-request), not its store alone: it says little of the plugin\'s own cost.',
      'The properties are the testing kit\'s (petstore-service/testing, docs/testing-kit.md): `limiterAgreesWithModel`, each request answered as the reference model answers it, and `limiterKeepsToLimits`, never more than the limit admitted within a span shorter than the window (what any exact limiter holds, whatever its algorithm), on the same schedules: the kit\'s (bursts at sub-window and window edges, idle gaps; up to 40 steps), ' +
        'on a fresh subject each case, one request after another. On the memory stores Date.now() is driven (a virtual clock only the schedule moves); ' +
        'this service\'s Redis store takes the same driven clock in place of Redis\'s TIME; the peers\' Redis stores, whose windows are key expiries, play their schedules on the real clock (up to 6 steps, each request sent once its time has come), bounded in time. ' +
        'The model counts its oldest sub-window whole, so a limiter exact over rolling windows can still admit what it refuses; "most admitted in a rolling window" says whether the shrunk schedule went over the limit itself. ' +
        'On the real clock a request leaves a millisecond or two after its time, which near a window edge can decide its answer: those rows are the harness\'s as much as the limiter\'s.',
    );
    const results: AccuracyResults = {
      generatedAt: new Date().toISOString(),
      machine: { cpu: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`, node: process.version },
      limit: TRAFFIC.limit,
      windowMs: TRAFFIC.windowMs,
      edgeMs: TRAFFIC.edgeMs,
      toleranceMs: TOLERANCE_MS,
      quick: QUICK,
      rows,
      properties,
      notes,
    };
    const dir = fileURLToPath(new URL('../../bench/', import.meta.url));
    writeFileSync(`${dir}results/accuracy.json`, `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(`${dir}results/accuracy.svg`, renderChart(results));
    const guide = readFileSync(`${dir}README.md`, 'utf8');
    const begin = guide.indexOf(SECTION_BEGIN);
    const end = guide.indexOf(SECTION_END);
    if (begin === -1 || end === -1) throw new Error('bench/README.md has no bench:accuracy markers');
    writeFileSync(`${dir}README.md`, guide.slice(0, begin) + renderSection(results, verdictOf(rows)) + guide.slice(end + SECTION_END.length));
    console.log(renderTable(results));
    console.log();
    console.log(verdictOf(rows));
    console.log();
    console.log(renderProperties(results));
  } finally {
    if (hasRedis) console.error(`deleted ${await deleteOwnKeys()} keys of ${PREFIX}`);
  }
  console.error(`done in ${Math.round((performance.now() - started) / 1000)} s`);
};

await main();
