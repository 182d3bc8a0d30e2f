import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient, type RedisClient } from '../../src/adapters/redis/redis-client.js';
import { createRedisClusterClient } from '../../src/adapters/redis/redis-cluster-client.js';
import { RedisQuotaStore } from '../../src/adapters/redis/redis-quota-store.js';
import { DEFAULT_BAN_POLICY } from '../../src/domain/quota/ban-policy.js';
import { LocalRefusals } from '../../src/adapters/wrappers/local-refusals.js';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import { createQuotaState, decideQuota } from '../../src/domain/quota/quota-engine.js';
import type { QuotaPolicy } from '../../src/domain/quota/quota-rule.js';
import { ManualClock } from '../support/manual-clock.js';
import { startRedisServer, type RedisServerProcess } from '../support/test-redis.js';
import { decidingStore } from '../support/quota-store-doubles.js';
import { nodesOf, startTestCluster, type TestCluster } from '../support/test-cluster.js';

const START = 1_767_225_600_000;
const STRIKE_LAG_MS = 100;
const RULES = [{ name: 'minute', limit: 2, windowMs: 60_000 }];
const BANNING: QuotaPolicy = { rules: RULES, ban: DEFAULT_BAN_POLICY };
const NEVER_BANNED: QuotaPolicy = { rules: RULES };

/** One service instance: its own connection, its store and the cache in front of it, counting the quota script's calls. */
interface Instance {
  readonly cache: LocalRefusals;
  readonly flushesDue: number[];
  quotaCalls: number;
}

// A Redis of this file's own, so INFO commandstats counts nothing but these instances' commands.
let server: RedisServerProcess;
const clients: Redis[] = [];
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await server.stop();
});

/** A connection of one more instance to this file's Redis. */
const redisConnection = async (): Promise<Redis> => {
  const client = await createRedisClient({ url: server.url, commandTimeoutMs: 5_000 });
  clients.push(client);
  return client;
};

const clock = new ManualClock(START);
let prefixes = 0;

const instancesOn = async (count: number, connect: () => Promise<RedisClient> = redisConnection): Promise<Instance[]> => {
  const prefix = `ban-cache:${prefixes++}:`;
  const instances: Instance[] = [];
  for (let i = 0; i < count; i++) {
    const client = await connect();
    const store = new RedisQuotaStore(client, { prefix, time: clock });
    const flushesDue: number[] = [];
    const instance: Instance = {
      flushesDue,
      quotaCalls: 0,
      cache: new LocalRefusals(
        decidingStore((subject, policy) => {
          instance.quotaCalls++;
          return store.decide(subject, policy);
        }),
        {
          recordStrikes: (subject, policy, strikes) => store.recordStrikes(subject, policy, strikes),
          // Under a ban rule the cache decides here, with the strikes reported: a quota call too.
          decideReportingStrikes: (subject, policy) => {
            instance.quotaCalls++;
            return store.decideReportingStrikes(subject, policy);
          },
        },
        clock,
        {
          strikeLagMs: STRIKE_LAG_MS,
          maxEntries: 1_000,
          schedule: (_flush, delayMs) => flushesDue.push(clock.now() + delayMs),
          onFlushError: (error) => {
            throw error;
          },
        },
      ),
    };
    instances.push(instance);
  }
  return instances;
};

/** Moves the clock to `at`, running on the way every flush whose timer would have fired, at its time. */
const advanceTo = async (instances: readonly Instance[], at: number): Promise<void> => {
  for (;;) {
    const due = instances.filter((instance) => instance.flushesDue.length > 0 && instance.flushesDue[0]! <= at);
    if (due.length === 0) break;
    const first = due.reduce((a, b) => (a.flushesDue[0]! <= b.flushesDue[0]! ? a : b));
    clock.set(first.flushesDue.shift()!);
    await first.cache.flush();
  }
  clock.set(at);
};

const requestAt = async (instances: readonly Instance[], instance: Instance, at: number, policy: QuotaPolicy): Promise<QuotaDecision> => {
  await advanceTo(instances, at);
  return instance.cache.decide('key:k', policy);
};

/** Calls per command since the server started, INFO's own excepted. */
const commandStats = async (): Promise<Record<string, string>> => {
  const info = await clients[0]!.info('commandstats');
  const calls: Record<string, string> = {};
  for (const match of info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) {
    if (match[1] !== 'info') calls[match[1]!] = match[2]!;
  }
  return calls;
};

describe('bans and refusals answered by each instance, not by Redis', () => {
  it("refuses a banned key on every instance with no Redis command sent, until exactly the ban's end", async () => {
    const instances = await instancesOn(3);
    const [first, second, third] = instances as [Instance, Instance, Instance];
    let banned: QuotaDecision | undefined;
    for (let at = clock.now(); banned === undefined; at += 10) {
      const decision = await requestAt(instances, first, at, BANNING);
      if (decision.verdict === 'banned') banned = decision;
    }
    // Each instance learns of the ban once from Redis (the first from the flush that started it).
    for (const instance of [second, third]) expect((await requestAt(instances, instance, clock.now(), BANNING)).verdict).toBe('banned');
    const bannedUntil = banned.retryAt;
    expect(bannedUntil - banned.decidedAt).toBeGreaterThan(DEFAULT_BAN_POLICY.banMs - 1_000);

    const before = await commandStats();
    const step = Math.floor((bannedUntil - 1 - clock.now()) / 300);
    for (let i = 1; i <= 300; i++) {
      const at = i === 300 ? bannedUntil - 1 : clock.now() + step;
      const decision = await requestAt(instances, instances[i % 3]!, at, BANNING);
      expect(decision).toEqual({ ...banned, decidedAt: at });
    }
    expect(await commandStats()).toEqual(before);

    const after = [];
    for (const instance of instances) after.push((await requestAt(instances, instance, bannedUntil, BANNING)).verdict);
    expect(after).toEqual(['admitted', 'admitted', 'rate_limited']);
    expect(Number((await commandStats())['evalsha'])).toBe(Number(before['evalsha']) + 3);
  });

  it('refuses a limited key until its Retry-After without calling the quota script; under a ban rule strikes are the only calls', async () => {
    const [instance] = (await instancesOn(1)) as [Instance];
    const instances = [instance];
    const start = clock.now();
    for (let i = 0; i < 2; i++) await requestAt(instances, instance, start, NEVER_BANNED);
    const refused = await requestAt(instances, instance, start, NEVER_BANNED);
    expect(refused.verdict).toBe('rate_limited');
    const before = await commandStats();
    for (let at = start; at < refused.retryAt; at += 997) {
      expect(await requestAt(instances, instance, at, NEVER_BANNED)).toEqual({ ...refused, decidedAt: at });
    }
    expect(await requestAt(instances, instance, refused.retryAt - 1, NEVER_BANNED)).toEqual({ ...refused, decidedAt: refused.retryAt - 1 });
    expect(await commandStats()).toEqual(before);
    expect(instance.quotaCalls).toBe(3);
    expect((await requestAt(instances, instance, refused.retryAt, NEVER_BANNED)).verdict).toBe('admitted');

    // Under a ban rule: 19 strikes, answered here until the strike lag before the Retry-After.
    clock.advance(120_000);
    const banStart = clock.now();
    await requestAt(instances, instance, banStart, BANNING);
    await requestAt(instances, instance, banStart, BANNING);
    const first = await requestAt(instances, instance, banStart, BANNING);
    const calls = instance.quotaCalls;
    const strikesBefore = await commandStats();
    for (let i = 1; i <= 19; i++) {
      const at = banStart + i * 200;
      expect(await requestAt(instances, instance, at, BANNING)).toEqual({ ...first, decidedAt: at });
    }
    await advanceTo(instances, banStart + 19 * 200 + STRIKE_LAG_MS);
    expect(instance.quotaCalls).toBe(calls);
    // Strikes 200 ms apart, each flushed on its own by the timer it started: 19 script calls
    // (EVAL once if the script was not loaded yet), each the strike script, the only one calling PTTL.
    const after = await commandStats();
    const delta = (command: string): number => Number(after[command] ?? 0) - Number(strikesBefore[command] ?? 0);
    expect(delta('evalsha') + delta('eval')).toBe(19);
    expect(delta('pttl')).toBe(19);
    // Redis holds the 19 strikes: the next refusal, decided by Redis, is the 20th and bans.
    expect((await requestAt(instances, instance, first.retryAt - STRIKE_LAG_MS, BANNING)).verdict).toBe('banned');
    expect(instance.quotaCalls).toBe(calls + 1);
  });

  it('bans a key on the strikes two instances answered, within the strike lag of its 20th', async () => {
    const instances = await instancesOn(2);
    const reference = createQuotaState(BANNING);
    const start = clock.now();
    let referenceBan: number | undefined;
    const bans: QuotaDecision[][] = [[], []];
    for (let i = 0; i < 200; i++) {
      const at = start + i * 7;
      const expected = decideQuota(reference, BANNING, at);
      if (expected.verdict === 'banned') referenceBan ??= at;
      const actual = await requestAt(instances, instances[i % 2]!, at, BANNING);
      expect(actual.verdict === 'admitted').toBe(expected.verdict === 'admitted');
      if (actual.verdict === 'banned') bans[i % 2]!.push(actual);
      else if (referenceBan !== undefined) expect(at).toBeLessThan(referenceBan + STRIKE_LAG_MS);
    }
    expect(referenceBan).toBeDefined();
    // Both instances answered strikes themselves, and both answer the ban.
    expect(instances.every((instance) => instance.quotaCalls < 50)).toBe(true);
    const bannedUntil = reference.bannedUntil;
    for (const answers of bans) {
      expect(answers.length).toBeGreaterThan(50);
      for (const answer of answers) {
        expect(answer.retryAt).toBeGreaterThanOrEqual(bannedUntil);
        expect(answer.retryAt).toBeLessThanOrEqual(bannedUntil + STRIKE_LAG_MS);
      }
    }
  });
});

/**
 * A key banned through one instance while another remembers its refusal: past the strike lag
 * after the ban is stored, the other answers the ban, with its end, not the refusal it remembers.
 */
const banReachesTheOtherInstance = async (connect: () => Promise<RedisClient>): Promise<void> => {
  const instances = await instancesOn(2, connect);
  const [first, second] = instances as [Instance, Instance];
  const start = clock.now();
  for (let i = 0; i < 3; i++) await requestAt(instances, first, start, BANNING);
  // The second remembers a refusal (and answers it for up to 5 s in a server: recheckMs).
  const remembered = await requestAt(instances, second, start + 1, BANNING);
  expect(remembered.verdict).toBe('rate_limited');
  expect((await requestAt(instances, second, start + 2, BANNING)).verdict).toBe('rate_limited');
  let banned: QuotaDecision | undefined;
  for (let at = start + 10; banned === undefined; at += 10) {
    const decision = await requestAt(instances, first, at, BANNING);
    if (decision.verdict === 'banned') banned = decision;
  }
  // Stored no later than the first instance answered it.
  const storedBy = banned.decidedAt;
  for (const after of [STRIKE_LAG_MS, 1_000, 4_000]) {
    const answer = await requestAt(instances, second, storedBy + after, BANNING);
    expect(answer, `${after} ms after the ban`).toEqual({ ...banned, decidedAt: storedBy + after });
  }
};

describe('a ban stored through one instance, answered by every instance within the strike lag', () => {
  it('on Redis', async () => {
    await banReachesTheOtherInstance(redisConnection);
  });

  describe('on a Redis Cluster', () => {
    let cluster: TestCluster | undefined;
    const clusterClients: Cluster[] = [];
    beforeAll(async () => {
      cluster = await startTestCluster();
    });
    afterAll(async () => {
      for (const client of clusterClients) client.disconnect();
      await cluster?.stop();
    });

    it('of three masters', async () => {
      await banReachesTheOtherInstance(async () => {
        const client = await createRedisClusterClient({ nodes: nodesOf(cluster!), commandTimeoutMs: 5_000 });
        clusterClients.push(client);
        return client;
      });
    });
  });
});
