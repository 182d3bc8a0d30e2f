import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/app/logging/logger.js';
import { SETTLE_MS, StoreOutageLog, type Schedule } from '../../src/app/logging/store-outage-log.js';

const collectingLogger = () => {
  const lines: Record<string, unknown>[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger('info', out), lines };
};

/** A clock and timers the test moves by hand. */
const manualTime = () => {
  let now = 1_000;
  const tasks = new Set<{ at: number; task: () => void }>();
  const schedule: Schedule = (task, delayMs) => {
    const entry = { at: now + delayMs, task };
    tasks.add(entry);
    return () => tasks.delete(entry);
  };
  const advance = (ms: number): void => {
    now += ms;
    for (const entry of [...tasks].sort((a, b) => a.at - b.at)) {
      if (entry.at > now) continue;
      tasks.delete(entry);
      entry.task();
    }
  };
  return { now: () => now, schedule, advance };
};

const summary = (lines: readonly Record<string, unknown>[]) => lines.map(({ level, store, cause, downMs, msg }) => ({ level, store, cause, downMs, msg }));

describe('the store outage log', () => {
  it('writes one line when a store goes away and one once it has answered for a second, whatever its adapters report between, per store', async () => {
    const { log, lines } = collectingLogger();
    const time = manualTime();
    const outages = new StoreOutageLog(log.logger, time.now, time.schedule);
    const redis = outages.listenerFor('redis');
    const postgres = outages.listenerFor('postgres');

    redis.available();
    redis.unavailable(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    for (let i = 0; i < 50; i++) redis.unavailable(new Error('Command timed out'));
    postgres.unavailable('PostgreSQL did not answer');
    time.advance(2_000);
    redis.available();
    postgres.available();
    // One of the pool's connections finds the restart after another already succeeded: the same outage.
    time.advance(200);
    postgres.unavailable(new Error('write CONNECTION_CLOSED'));
    postgres.available();
    time.advance(SETTLE_MS);
    redis.available();
    redis.unavailable(new Error('Command timed out'));
    await log.close();

    expect(summary(lines)).toEqual([
      { level: 40, store: 'redis', cause: 'connect ECONNREFUSED 127.0.0.1:6379', downMs: undefined, msg: 'store unavailable' },
      { level: 40, store: 'postgres', cause: 'PostgreSQL did not answer', downMs: undefined, msg: 'store unavailable' },
      { level: 30, store: 'redis', cause: undefined, downMs: 2_000, msg: 'store available again' },
      { level: 30, store: 'postgres', cause: undefined, downMs: 2_200, msg: 'store available again' },
      { level: 40, store: 'redis', cause: 'Command timed out', downMs: undefined, msg: 'store unavailable' },
    ]);
  });

  it('says the instance serves degraded when a store the API is served without goes away, and that it no longer is once it is back', async () => {
    const { log, lines } = collectingLogger();
    const time = manualTime();
    const outages = new StoreOutageLog(log.logger, time.now, time.schedule, new Map([['redis', 'PETSTORE_QUOTA_FALLBACK=local']]));
    const redis = outages.listenerFor('redis');
    redis.unavailable(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    time.advance(1_500);
    redis.available();
    time.advance(SETTLE_MS);
    await log.close();
    expect(lines.map(({ level, store, degraded, fallback, downMs, msg }) => ({ level, store, degraded, fallback, downMs, msg }))).toEqual([
      { level: 40, store: 'redis', degraded: true, fallback: 'PETSTORE_QUOTA_FALLBACK=local', downMs: undefined, msg: 'store unavailable; serving degraded' },
      { level: 30, store: 'redis', degraded: false, fallback: undefined, downMs: 1_500, msg: 'store available again; no longer degraded' },
    ]);
  });
});
