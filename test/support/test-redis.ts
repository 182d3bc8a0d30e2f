import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { Redis } from 'ioredis';
import { needsBeyondUnitTier } from './test-tier.js';

/** A Redis for one test file: its URL, a key prefix no one else uses, and the cleanup. */
export interface TestRedis {
  readonly url: string;
  /** `petstore-test:<random>:`: every key the test writes must start with it. */
  readonly prefix: string;
  /** Deletes the keys under `prefix` (never anything else) and stops a server started for this call. */
  cleanup(): Promise<void>;
}

/** A private redis-server process, e.g. to stop and restart under a running client. */
export interface RedisServerProcess {
  /** Of the redis-server process, e.g. to SIGSTOP it into a Redis that accepts but never answers. */
  readonly pid: number;
  readonly port: number;
  readonly url: string;
  /** Kills the process (SIGKILL, as a crash would) and resolves once it has exited. */
  stop(): Promise<void>;
}

const DOCKER_SOCKET = '/var/run/docker.sock';
const PROBE_TIMEOUT_MS = 1_000;

const HOW_TO_PROVIDE = [
  'No Redis available for the tests. Provide one in any of these ways:',
  '  - set REDIS_URL, e.g. REDIS_URL=redis://127.0.0.1:6379',
  '  - start a Docker engine (testcontainers then runs redis:7)',
  '  - run a Redis on 127.0.0.1:6379',
  '  - install redis-server on the PATH (e.g. apt-get install redis-server)',
].join('\n');

/**
 * A Redis to test against, in this order: REDIS_URL; a redis:7 container when a Docker
 * engine answers; a Redis answering PING on 127.0.0.1:6379; a redis-server from the PATH on
 * a free port. Each call gets its own key prefix, so files sharing one Redis never meet.
 */
export const acquireTestRedis = async (): Promise<TestRedis> => {
  needsBeyondUnitTier('a Redis server');
  const prefix = `petstore-test:${randomBytes(6).toString('hex')}:`;
  const fromEnv = process.env['REDIS_URL'];
  if (fromEnv !== undefined && fromEnv !== '') return sharedRedis(fromEnv, prefix);
  if (await dockerAnswers()) return sharedRedis(await containerUrl(), prefix);
  if (await answers('127.0.0.1', 6379, true)) return sharedRedis('redis://127.0.0.1:6379', prefix);
  let server: RedisServerProcess;
  try {
    server = await startRedisServer();
  } catch (error) {
    throw new Error(HOW_TO_PROVIDE, { cause: error });
  }
  return {
    url: server.url,
    prefix,
    cleanup: async () => {
      await deleteKeysUnder(server.url, prefix);
      await server.stop();
    },
  };
};

const sharedRedis = (url: string, prefix: string): TestRedis => ({ url, prefix, cleanup: () => deleteKeysUnder(url, prefix) });

/**
 * Deletes every key starting with `prefix` (SCAN MATCH + UNLINK): never FLUSHDB on a shared
 * Redis. Through `target` if it is a client, else through a connection of its own to that URL.
 */
export const deleteKeysUnder = async (target: Redis | string, prefix: string): Promise<void> => {
  const redis = typeof target === 'string' ? new Redis(target, { lazyConnect: true, maxRetriesPerRequest: 1 }) : target;
  try {
    if (redis !== target) await redis.connect();
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    if (redis !== target) redis.disconnect();
  }
};

/**
 * Starts `redis-server` on `port` (default: a free one), persisting nothing, and resolves
 * once that process says it is ready (a PING could be answered by another server holding
 * the port). Starting it again on the same port after `stop` simulates a restart. `extraArgs`
 * follow the defaults, so they may override them (a later `--dir` wins).
 */
export const startRedisServer = async (port?: number, extraArgs: readonly string[] = []): Promise<RedisServerProcess> => {
  needsBeyondUnitTier('a Redis server process');
  const chosen = port ?? (await freePort());
  const child = spawn(
    'redis-server',
    ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir(), ...extraArgs],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server on port ${chosen} not ready within 5 s:\n${output}`)), 5_000);
      const settle = (error?: Error): void => {
        clearTimeout(timer);
        // Stop collecting the log, but keep draining it so the server never blocks on a full pipe.
        child.stdout?.off('data', read).resume();
        child.stderr?.off('data', read).resume();
        if (error === undefined) resolve();
        else reject(error);
      };
      const read = (chunk: Buffer): void => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) settle();
      };
      child.stdout?.on('data', read);
      child.stderr?.on('data', read);
      child.once('error', settle);
      child.once('exit', (code) => settle(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
    });
  } catch (error) {
    await kill(child, exited);
    throw error;
  }
  return { pid: child.pid ?? 0, port: chosen, url: `redis://127.0.0.1:${chosen}`, stop: () => kill(child, exited) };
};

const kill = async (child: ChildProcess, exited: Promise<void>): Promise<void> => {
  // A process that never started (no redis-server on the PATH) never exits either.
  if (child.pid === undefined) return;
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await exited;
};

/** A TCP port nobody listens on now (a throwaway redis-server's). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });

/**
 * Whether something listens on host:port within a second and, when `redisPing`, answers a
 * raw PING with PONG: probing an absent Redis costs one refused connection, not a client's retries.
 */
const answers = (host: string, port: number, redisPing: boolean): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host, port, timeout: PROBE_TIMEOUT_MS });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.once('connect', () => (redisPing ? socket.write('PING\r\n') : done(true)));
    socket.once('data', (chunk: Buffer) => done(chunk.toString().startsWith('+PONG')));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });

/** True only when a Docker engine is configured and answers within a second: no wait when there is none. */
const dockerAnswers = async (): Promise<boolean> => {
  const dockerHost = process.env['DOCKER_HOST'];
  if (dockerHost !== undefined && dockerHost !== '') {
    if (!URL.canParse(dockerHost)) return false;
    const url = new URL(dockerHost);
    if (url.protocol === 'unix:') return pingsDockerSocket(url.pathname);
    return answers(url.hostname, Number(url.port || 2375), false);
  }
  return existsSync(DOCKER_SOCKET) && pingsDockerSocket(DOCKER_SOCKET);
};

const pingsDockerSocket = (socketPath: string): Promise<boolean> =>
  new Promise((resolve) => {
    const ping = request({ socketPath, path: '/_ping', timeout: PROBE_TIMEOUT_MS }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    ping.once('timeout', () => ping.destroy());
    ping.once('error', () => resolve(false));
    ping.end();
  });

/** One container per test process, started on first use; testcontainers' reaper removes it when the process ends. */
let container: Promise<string> | undefined;
const containerUrl = (): Promise<string> => {
  container ??= (async () => {
    const { GenericContainer, Wait } = await import('testcontainers');
    const started = await new GenericContainer('redis:7')
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
      .start();
    return `redis://${started.getHost()}:${started.getMappedPort(6379)}`;
  })();
  return container;
};
