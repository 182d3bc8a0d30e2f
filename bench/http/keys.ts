/**
 * The API keys of the HTTP bench, shared by the servers (which register them) and the load
 * generator (which sends them). Deterministic, so no key crosses a process boundary.
 */

export interface BenchKey {
  readonly key: string;
  /** A PETSTORE_API_KEYS plan entry after `KEY:`. */
  readonly plan: string;
  /** What the fastify peer enforces: @fastify/rate-limit keeps one window per key. */
  readonly perMinute: number;
}

/** Never limited within a bench: the largest limits a counter holds. Its plan is `enterprise`'s two rules, or FIVE_RULES_PLAN's five. */
export const UNLIMITED: BenchKey = { key: 'bench-unlimited-key', plan: 'enterprise:4000000000:4000000000', perMinute: 4_000_000_000 };

/** Free plan (60 per minute): spent before its scenario measures, so every request takes the 429 path. */
export const LIMITED: BenchKey = { key: 'bench-limited-key', plan: 'free', perMinute: 60 };

export const SPREAD_KEY_COUNT = 10_000;

/** Business plan (1,000 per minute): at the rates of this machine a key gets far fewer, so all are admitted. */
export const spreadKey = (index: number): BenchKey => ({
  key: `bench-spread-${String(index).padStart(5, '0')}`,
  plan: 'business',
  perMinute: 1_000,
});

/**
 * The plans file (PETSTORE_PLANS) of the `five-rules` server and its one plan, which that server
 * gives the UNLIMITED key instead of its two rules (BENCH_UNLIMITED_PLAN): a minute and a day
 * rule as today, a rule of listPets alone at a cost of 2, a shadow rule and a rule of the writes,
 * every limit out of a bench's reach. A list request is counted by four of them and told of three.
 */
export const FIVE_RULES_PLANS_FILE = 'bench/http/five-rules-plans.json';
export const FIVE_RULES_PLAN = 'five-rules';

export const allBenchKeys = (): BenchKey[] => [UNLIMITED, LIMITED, ...Array.from({ length: SPREAD_KEY_COUNT }, (_, i) => spreadKey(i))];

/**
 * PETSTORE_API_KEYS for every bench key: about 300 KB, too long for one environment variable,
 * hence set in-process. `unlimitedPlan`: another plan for the UNLIMITED key (one of PETSTORE_PLANS).
 */
export const petstoreApiKeys = (unlimitedPlan = UNLIMITED.plan): string =>
  allBenchKeys()
    .map(({ key, plan }) => `${key}:${key === UNLIMITED.key ? unlimitedPlan : plan}`)
    .join(',');
