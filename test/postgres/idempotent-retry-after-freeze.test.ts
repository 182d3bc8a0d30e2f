import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPostgresDatabase, type PostgresDatabase } from '../../src/adapters/postgres/postgres-database.js';
import { startPetStore } from '../../src/app/start-pet-store.js';
import { describeRetriesThroughFreeze, FREEZE_API_KEYS, type StoreFreezer } from '../support/frozen-store-retries.js';
import { startRedisProxy, type RedisProxy } from '../support/redis-proxy.js';
import { acquireTestRedis } from '../support/test-redis.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwaway-postgres.js';

/** The postmaster of a data directory and every process it forked (its backends among them), now. */
const serverPids = (dataDir: string): number[] => {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // The parent pid is the second field after the command name, which is in parentheses.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        // The process ended meanwhile.
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
};

/**
 * Freezes the whole throwaway server (SIGSTOP to the postmaster and its backends) as a matching
 * message reaches the TCP proxy the service connects through (a generic proxy: PostgreSQL's
 * Bind messages carry their parameters as text), then lets the message on: PostgreSQL runs it
 * once thawed. Marks are read straight from the server, past the proxy.
 */
function postgresFreezer(postgres: ThrowawayPostgres, proxy: RedisProxy, direct: PostgresDatabase): StoreFreezer {
  let fired = false;
  let frozen: number[] = [];
  const signal = (pids: readonly number[], name: NodeJS.Signals): void => {
    for (const pid of pids) {
      try {
        process.kill(pid, name);
      } catch {
        // A backend that ended meanwhile.
      }
    }
  };
  return {
    arm: (matches) => {
      fired = false;
      proxy.holdNext(matches, (letThrough) => {
        frozen = serverPids(join(postgres.dir, 'data'));
        signal(frozen, 'SIGSTOP');
        fired = true;
        letThrough();
      });
    },
    fired: () => fired,
    release: () => {
      proxy.disarm();
      signal(frozen, 'SIGCONT');
      frozen = [];
    },
    markEnd: async (idempotencyKey) => {
      const { rows } = await direct.query<{ expires_at: string }>('SELECT expires_at FROM idempotency_records WHERE key = $1 AND result IS NULL', [idempotencyKey]);
      return rows[0] === undefined ? undefined : Number(rows[0].expires_at);
    },
  };
}

describeRetriesThroughFreeze('PostgreSQL', async () => {
  const [postgres, redis] = await Promise.all([startThrowawayPostgres(), acquireTestRedis()]);
  const proxy = await startRedisProxy(postgres.url);
  const direct = createPostgresDatabase({ url: postgres.url, max: 1, timeoutMs: 10_000 });
  const store = await startPetStore(
    {
      PETSTORE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      PETSTORE_STORE: 'postgres',
      DATABASE_URL: `postgres://postgres@127.0.0.1:${new URL(proxy.url).port}/postgres`,
      REDIS_URL: redis.url,
      PETSTORE_REDIS_PREFIX: redis.prefix,
      PETSTORE_API_KEYS: FREEZE_API_KEYS,
      PETSTORE_LOG_LEVEL: 'silent',
    },
    {},
    { serveAdmin: false },
  );
  return {
    baseUrl: store.baseUrl,
    freezer: postgresFreezer(postgres, proxy, direct),
    close: async () => {
      await store.close(0, 0);
      await direct.end();
      await proxy.close();
      await redis.cleanup();
      await postgres.destroy();
    },
  };
},
  // The statement of a request answered 503 is cancelled in PostgreSQL (statement-deadlines.test.ts): once thawed it stores nothing.
  { givesUpFrozenSteps: true },
);
