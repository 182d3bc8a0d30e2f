import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startTestCluster } from '../../test/support/test-cluster.js';
import { FIVE_RULES_PLAN, FIVE_RULES_PLANS_FILE } from './keys.js';
import { createBenchDatabase } from './postgres.js';
import { cpuSecondsOf, stopChild } from './child-process.js';

export type ServerName = 'ceiling' | 'peer' | 'router' | 'memory' | 'operated' | 'five-rules' | 'redis' | 'cluster' | 'postgres';

export interface ServerSpec {
  readonly name: ServerName;
  readonly label: string;
  /** Compiled script under dist/bench/servers/. */
  readonly script: string;
  /** Another build's checkout whose dist/bench/servers/ holds the script (e.g. a base commit's): this build's when absent. */
  readonly buildDir?: string;
  readonly env: Readonly<Record<string, string>>;
  /** Only in these scenarios: a variant worth one row, not a column of every table. */
  readonly scenarios?: readonly string[];
  /** On a local Redis Cluster of three masters, started before the server and stopped after it (REDIS_CLUSTER_NODES). */
  readonly localCluster?: true;
  /**
   * On a database of its own (`petstore_bench_<random hex>`), created with psql before the
   * server starts (the server applies the migrations) and dropped WITH (FORCE) after it stops
   * (DATABASE_URL).
   */
  readonly localDatabase?: true;
  /** Answers every request 200 without reading it (the ceiling): refused by no scenario. */
  readonly answersAll200?: true;
}

export interface RunningServer {
  readonly spec: ServerSpec;
  /** Ends in `/v1`. */
  readonly baseUrl: string;
  /** CPU seconds (user + system) the server process has used so far; undefined where /proc is missing. */
  cpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;

/**
 * `postgres`: whether the PostgreSQL store is measured (a server answered psql); it keeps its
 * counters in the Redis of `redis`, under a prefix of its own below the scenario's (`<prefix>pg:`).
 */
export const serverSpecs = (redis: { readonly url: string; readonly prefix: string } | undefined, postgres = false): ServerSpec[] => {
  const specs: ServerSpec[] = [
    { name: 'ceiling', label: 'node:http ceiling', script: 'ceiling-server.js', env: {}, answersAll200: true },
    { name: 'peer', label: 'fastify + @fastify/rate-limit', script: 'fastify-peer.js', env: {} },
    { name: 'router', label: 'find-my-way + fixed window, by hand', script: 'router-fixed-window.js', env: {} },
    { name: 'memory', label: 'petstore, memory store', script: 'petstore-server.js', env: { PETSTORE_STORE: 'memory' } },
    {
      // What operations turn on in production: one access line per request, metrics of every request.
      name: 'operated',
      label: 'petstore, memory store, access log + metrics',
      script: 'petstore-server.js',
      env: { PETSTORE_STORE: 'memory', PETSTORE_ACCESS_LOG: 'on', PETSTORE_ADMIN_PORT: '0' },
      scenarios: ['list'],
    },
    {
      // The never-limited key under a plan of five rules (keys.ts) instead of today's two.
      name: 'five-rules',
      label: 'petstore, memory store, a key of five rules',
      script: 'petstore-server.js',
      env: { PETSTORE_STORE: 'memory', PETSTORE_PLANS: fileURLToPath(new URL(`../../../${FIVE_RULES_PLANS_FILE}`, import.meta.url)), BENCH_UNLIMITED_PLAN: FIVE_RULES_PLAN },
      scenarios: ['list'],
    },
  ];
  if (redis !== undefined) {
    specs.push({
      name: 'redis',
      label: 'petstore, Redis store',
      script: 'petstore-server.js',
      env: { PETSTORE_STORE: 'redis', REDIS_URL: redis.url, PETSTORE_REDIS_PREFIX: redis.prefix },
    });
    // Beside the single Redis it is compared with: its keys spread over three shards, a redirection-aware client.
    specs.push({
      name: 'cluster',
      label: 'petstore, Redis Cluster (3 masters)',
      script: 'petstore-server.js',
      // REDIS_URL emptied: the bench's own, inherited, would be refused beside REDIS_CLUSTER_NODES.
      env: { PETSTORE_STORE: 'redis', REDIS_URL: '', PETSTORE_REDIS_PREFIX: redis.prefix },
      localCluster: true,
    });
    if (postgres) {
      // Records in PostgreSQL (synchronous_commit as the server has it: on by default), counters in Redis.
      specs.push({
        name: 'postgres',
        label: 'petstore, PostgreSQL store (+ Redis counters)',
        script: 'petstore-server.js',
        env: { PETSTORE_STORE: 'postgres', REDIS_URL: redis.url, PETSTORE_REDIS_PREFIX: `${redis.prefix}pg:` },
        localDatabase: true,
      });
    }
  }
  return specs;
};

/**
 * Every server runs without V8's memory reducer. Between its measurements a server idles
 * while the others are measured, and the reducer then shrinks its heap: identical servers
 * measured after such a pause used about 20% more CPU per request for the whole measurement,
 * the warm-up notwithstanding, so the order of the servers decided the result. A server
 * under steady load never idles long enough for that, and the flag applies to all alike.
 */
const NODE_FLAGS = ['--no-memory-reducer'];

/**
 * Starts one server as a child process on 127.0.0.1 and a free port, and resolves once it
 * prints `listening on <url>` on stderr. BENCH_NODE_OPTIONS adds node flags, e.g. `--cpu-prof`. The
 * local Cluster of a `localCluster` server is started before it and stopped after it.
 */
export const startServer = async (spec: ServerSpec): Promise<RunningServer> => {
  if (spec.localDatabase === true) {
    const database = await createBenchDatabase();
    try {
      const server = await startProcess({ ...spec, env: { ...spec.env, DATABASE_URL: database.url } });
      return {
        ...server,
        stop: async () => {
          await server.stop();
          await database.drop();
        },
      };
    } catch (error) {
      await database.drop();
      throw error;
    }
  }
  if (spec.localCluster !== true) return startProcess(spec);
  const cluster = await startTestCluster();
  try {
    const server = await startProcess({ ...spec, env: { ...spec.env, REDIS_CLUSTER_NODES: cluster.nodesVariable } });
    return {
      ...server,
      stop: async () => {
        await server.stop();
        await cluster.stop();
      },
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
};

/**
 * A server's stdout (its log lines) goes to a process of its own that discards it, as a log
 * shipper would read it: read here, the lines would cost the load generator its time and,
 * drained late, leave the server's log buffers growing. Servers announce on stderr.
 */
const startProcess = (spec: ServerSpec): Promise<RunningServer> => {
  const script =
    spec.buildDir === undefined ? fileURLToPath(new URL(`../servers/${spec.script}`, import.meta.url)) : join(spec.buildDir, 'dist', 'bench', 'servers', spec.script);
  const nodeFlags = [...NODE_FLAGS, ...(process.env['BENCH_NODE_OPTIONS'] ?? '').split(' ').filter((flag) => flag !== '')];
  const logReader = spawn('cat', [], { stdio: ['pipe', 'ignore', 'ignore'] });
  const child = spawn(process.execPath, [...nodeFlags, script], {
    env: { ...process.env, ...spec.env, HOST: '127.0.0.1', PORT: '0' },
    stdio: ['ignore', logReader.stdin, 'pipe'],
  });
  // The server holds its own end now; the reader exits once the server has.
  logReader.stdin.destroy();
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(`did not start within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${spec.label}: ${why}\n${stderr}`));
    };
    child.once('exit', (code) => fail(`exited with ${code}`));
    const lines = createInterface({ input: child.stderr });
    lines.on('line', (line) => {
      stderr += `${line}\n`;
      const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      lines.close();
      child.stderr.resume();
      resolve({ spec, baseUrl: url, cpuSeconds: () => cpuSecondsOf(child.pid), stop: () => stopChild(child, STOP_TIMEOUT_MS) });
    });
  });
};
