/**
 * Micro-benchmark of the quota engine through MemoryQuotaStore.
 * Build with `npx tsc -p tsconfig.build.json`, run with `node --expose-gc dist/bench/quota-engine.js`.
 * Each scenario runs in a child process of its own, so one scenario's type feedback cannot
 * slow another down.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MemoryQuotaStore } from '../src/adapters/memory/memory-quota-store.js';
import { RATE_LIMIT_STATUS_RULE } from '../src/adapters/http/contract/rate-limit-status-rule.js';
import { PET_STORE_OPERATION_IDS } from '../src/adapters/http/contract/pet-store-routes.js';
import { readPlansFile } from '../src/app/config/plans-file.js';
import { DEFAULT_BAN_POLICY } from '../src/domain/quota/ban-policy.js';
import { costsOf } from '../src/domain/quota/plan-rules.js';
import { STANDARD_PLANS, enterprisePlan } from '../src/domain/quota/plan.js';
import type { QuotaPolicy, RuleCosts } from '../src/domain/quota/quota-rule.js';
import type { Clock } from '../src/ports/clock.js';
import { FIVE_RULES_PLAN, FIVE_RULES_PLANS_FILE } from './http/keys.js';
import { median } from './http/report.js';
import { MEMORY_KEYS, quotaBytesPerKey, TWO_RULES } from './quota-memory.js';

const SECONDS_PER_SCENARIO = 2;
/** Pairs of the two-rule and five-rule scenarios, each a child of its own, whose ratios the five-against-two figure is the median of. */
const FIVE_VS_TWO_PAIRS = 3;
const KEYS = 100_000;
/** Simulated traffic: the clock moves 1 ms every this many decisions (100,000 decisions per simulated second). */
const DECISIONS_PER_MS = 100;
const START = 1_767_225_600_000;

class SteppingClock implements Clock {
  at = START;
  now(): number {
    return this.at;
  }
}

const subjects = Array.from({ length: KEYS }, (_, i) => `${i.toString(16).padStart(8, '0')}${'ab'.repeat(28)}`);
const hotKey = subjects[0]!;
const business = TWO_RULES;
const businessNoBan: QuotaPolicy = { rules: STANDARD_PLANS.business.rules };
const neverFull: QuotaPolicy = { rules: enterprisePlan(2_000_000_000, 4_000_000_000).rules, ban: DEFAULT_BAN_POLICY };

/** The HTTP bench's plan of five rules (bench/http/keys.ts), read as the service reads it, and what a list request spends under it. */
const fiveRules = (): { readonly policy: QuotaPolicy; readonly costs: RuleCosts } => {
  const file = fileURLToPath(new URL(`../../${FIVE_RULES_PLANS_FILE}`, import.meta.url));
  const plans = readPlansFile(file, { operations: PET_STORE_OPERATION_IDS, reservedRuleNames: [RATE_LIMIT_STATUS_RULE.name] });
  const plan = plans.ok ? plans.value.get(FIVE_RULES_PLAN) : undefined;
  if (plan === undefined) throw new Error(`${FIVE_RULES_PLANS_FILE}: no plan ${FIVE_RULES_PLAN}${plans.ok ? '' : `\n${plans.error}`}`);
  return { policy: { rules: plan.rules, ban: DEFAULT_BAN_POLICY }, costs: costsOf(plan, 'listPets') };
};

interface Measured {
  readonly opsPerSecond: number;
  readonly verdicts: string;
}

/** Calls `step` for SECONDS_PER_SCENARIO after a warm-up; `step` answers 0, 1 or 2 to be tallied. */
const measure = (step: (i: number) => number, labels: readonly string[]): Measured => {
  const tally = [0, 0, 0];
  let i = 0;
  const batch = (): void => {
    for (const end = i + 100_000; i < end; i++) tally[step(i)]!++;
  };
  const warmUpUntil = performance.now() + 300;
  while (performance.now() < warmUpUntil) batch();
  tally.fill(0);
  const first = i;
  const started = performance.now();
  while (performance.now() - started < SECONDS_PER_SCENARIO * 1000) batch();
  const elapsed = (performance.now() - started) / 1000;
  const total = i - first;
  const verdicts = labels
    .map((label, k) => [label, tally[k]!] as const)
    .filter(([, count]) => count > 0)
    .map(([label, count]) => `${label} ${((100 * count) / total).toFixed(count === total ? 0 : 2)}%`)
    .join(', ');
  return { opsPerSecond: total / elapsed, verdicts };
};

const VERDICTS = ['admitted', 'rate_limited', 'banned'] as const;

const engine = (policy: QuotaPolicy, spread: boolean, cost: number | RuleCosts = 1): Measured => {
  const clock = new SteppingClock();
  const store = new MemoryQuotaStore(clock);
  return measure((i) => {
    if (i % DECISIONS_PER_MS === 0) clock.at++;
    const verdict = store.decide(spread ? subjects[i % KEYS]! : hotKey, policy, cost).verdict;
    return verdict === 'admitted' ? 0 : verdict === 'rate_limited' ? 1 : 2;
  }, VERDICTS);
};

/** The least a per-key limiter does: read the clock, find the key's counter, bump it. */
const baseline = (spread: boolean): Measured => {
  const clock = new SteppingClock();
  const counters = new Map<string, { count: number; at: number }>();
  return measure((i) => {
    if (i % DECISIONS_PER_MS === 0) clock.at++;
    const key = spread ? subjects[i % KEYS]! : hotKey;
    let counter = counters.get(key);
    if (counter === undefined) {
      counter = { count: 0, at: 0 };
      counters.set(key, counter);
    }
    counter.count++;
    counter.at = clock.now();
    return 0;
  }, ['counted']);
};

/** Bytes per key (bench/quota-memory.ts, which bench:sizing reports too). */
const bytesPerKey = (): string => {
  const bytes = quotaBytesPerKey();
  if (bytes === undefined) return 'not measured: run node with --expose-gc';
  return `${bytes.toFixed(0)} bytes per key (${MEMORY_KEYS.toLocaleString('en-US')} keys, Business's two rules; JS heap + typed-array buffers, key strings excluded)`;
};

const SCENARIOS: Record<string, { readonly title: string; readonly run: () => Measured }> = {
  hotBanned: { title: 'one hot key, Business, default ban', run: () => engine(business, false) },
  hotLimited: { title: 'one hot key, Business, no ban', run: () => engine(businessNoBan, false) },
  hotAdmitted: { title: 'one hot key, never full (admitted path)', run: () => engine(neverFull, false) },
  hotFiveRules: {
    title: 'one hot key, five rules never full, a list request (admitted path)',
    run: () => {
      const { policy, costs } = fiveRules();
      return engine(policy, false, costs);
    },
  },
  spread: { title: `${KEYS.toLocaleString('en-US')} keys round robin, Business, default ban`, run: () => engine(business, true) },
  hotBaseline: { title: 'baseline, one key', run: () => baseline(false) },
  spreadBaseline: { title: `baseline, ${KEYS.toLocaleString('en-US')} keys`, run: () => baseline(true) },
};

const child = process.argv[2];
if (child === 'memory') {
  console.log(JSON.stringify(bytesPerKey()));
} else if (child !== undefined) {
  const scenario = SCENARIOS[child];
  if (scenario === undefined) throw new Error(`unknown scenario ${child}`);
  console.log(JSON.stringify(scenario.run()));
} else {
  if (globalThis.gc === undefined) console.log('(this process has no --expose-gc; the memory child gets it)\n');
  const self = fileURLToPath(import.meta.url);
  const inChild = (name: string): unknown =>
    JSON.parse(execFileSync(process.execPath, ['--expose-gc', self, name], { encoding: 'utf8' }));
  const results = new Map(Object.keys(SCENARIOS).map((name) => [name, inChild(name) as Measured]));
  const format = (ops: number): string => Math.round(ops).toLocaleString('en-US');
  console.log(`Quota engine through MemoryQuotaStore: ${SECONDS_PER_SCENARIO} s per scenario, node ${process.version}.`);
  console.log(`The clock moves 1 ms every ${DECISIONS_PER_MS} decisions. Baseline: Map.get + counter increment.\n`);
  console.log('| scenario | decisions/s | baseline ops/s | baseline / engine | verdicts |');
  console.log('|---|---:|---:|---:|---|');
  for (const [name, reference] of [
    ['hotBanned', 'hotBaseline'],
    ['hotLimited', 'hotBaseline'],
    ['hotAdmitted', 'hotBaseline'],
    ['hotFiveRules', 'hotBaseline'],
    ['spread', 'spreadBaseline'],
  ] as const) {
    const measured = results.get(name)!;
    const base = results.get(reference)!;
    const ratio = (base.opsPerSecond / measured.opsPerSecond).toFixed(1);
    console.log(
      `| ${SCENARIOS[name]!.title} | ${format(measured.opsPerSecond)} | ${format(base.opsPerSecond)} | ${ratio} | ${measured.verdicts} |`,
    );
  }
  // Both measured again, alternately, so the ratio does not rest on one pair of children on a shared machine.
  const pairs: [Measured, Measured][] = [[results.get('hotAdmitted')!, results.get('hotFiveRules')!]];
  for (let pair = 1; pair < FIVE_VS_TWO_PAIRS; pair++) pairs.push([inChild('hotAdmitted') as Measured, inChild('hotFiveRules') as Measured]);
  const ratios = pairs.map(([two, five]) => two.opsPerSecond / five.opsPerSecond);
  console.log(
    `\nFive rules against two (one hot key, never full; the HTTP bench's plan of five, a list request, against enterprise's two): ` +
      `time per decision five / two ${median(ratios).toFixed(2)}, the median of ${pairs.length} pairs run alternately (${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}); ` +
      `${(1e9 / median(pairs.map(([, five]) => five.opsPerSecond))).toFixed(0)} against ${(1e9 / median(pairs.map(([two]) => two.opsPerSecond))).toFixed(0)} ns per decision.`,
  );
  console.log(`\nMemory: ${inChild('memory') as string}`);
}
