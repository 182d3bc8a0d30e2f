import fc from 'fast-check';
import { DEFAULT_BAN_POLICY } from '../domain/quota/ban-policy.js';
import { STANDARD_PLANS, enterprisePlan } from '../domain/quota/plan.js';
import type { BanPolicy, QuotaPolicy, QuotaRule, RuleCosts, RuleMode } from '../domain/quota/quota-rule.js';

/* Generators of rules and request times that stress a sliding window: bursts, edges, idle gaps. */

/** Aligned on every granule of the real plans, and zero. */
const BASES = [0, 1_767_225_600_000] as const;

/** Small windows and limits so windows fill: granules of 1 to 1000 ms. */
export const smallRuleArb = (name: string): fc.Arbitrary<QuotaRule> =>
  fc
    .record({ granule: fc.constantFrom(1, 2, 5, 7, 1000), limit: fc.integer({ min: 1, max: 6 }) })
    .map(({ granule, limit }) => ({ name, limit, windowMs: 60 * granule }));

export const smallRulesArb: fc.Arbitrary<readonly QuotaRule[]> = fc.oneof(
  fc.tuple(smallRuleArb('a')),
  fc.tuple(smallRuleArb('a'), smallRuleArb('b')),
);

export const smallBanArb: fc.Arbitrary<BanPolicy> = fc.record({
  strikes: fc.integer({ min: 1, max: 5 }),
  strikeWindowMs: fc.integer({ min: 1, max: 20_000 }),
  banMs: fc.integer({ min: 1, max: 100_000 }),
});

type StepKind = 'same' | 'near' | 'granuleEdge' | 'windowEdge' | 'afterEarlier' | 'idle';

interface Step {
  readonly kind: StepKind;
  /** Which rule's granule or window the step is measured in. */
  readonly rule: number;
  readonly offset: number;
  readonly size: number;
  readonly burst: number;
}

const stepArb = (maxBurst: number): fc.Arbitrary<Step> =>
  fc.record({
    kind: fc.oneof(
      { arbitrary: fc.constant<StepKind>('same'), weight: 2 },
      { arbitrary: fc.constant<StepKind>('near'), weight: 4 },
      { arbitrary: fc.constant<StepKind>('granuleEdge'), weight: 2 },
      { arbitrary: fc.constant<StepKind>('windowEdge'), weight: 1 },
      { arbitrary: fc.constant<StepKind>('afterEarlier'), weight: 2 },
      { arbitrary: fc.constant<StepKind>('idle'), weight: 1 },
    ),
    rule: fc.nat({ max: 1 }),
    offset: fc.integer({ min: -2, max: 2 }),
    size: fc.nat({ max: 1_000_000 }),
    burst: fc.integer({ min: 1, max: maxBurst }),
  });

/** The time a rule's count changes in: a window's granule, a burst bucket's emission interval rounded up to whole ms. */
const stepMs = (rule: QuotaRule): number => (rule.kind === 'burst' ? Math.ceil(rule.windowMs / rule.limit) : rule.windowMs / 60);

const timesOf = (rules: readonly QuotaRule[], start: number, steps: readonly Step[]): number[] => {
  const times: number[] = [];
  let t = start;
  for (const step of steps) {
    const rule = rules[step.rule % rules.length];
    const windowMs = rule?.windowMs ?? 60_000;
    const granule = rule === undefined ? 1_000 : stepMs(rule);
    let next = t;
    switch (step.kind) {
      case 'same':
        break;
      case 'near':
        next = t + (step.size % (2 * granule));
        break;
      case 'granuleEdge':
        next = (Math.floor(t / granule) + 1) * granule + step.offset;
        break;
      case 'windowEdge':
        next = (Math.floor(t / windowMs) + 1) * windowMs + step.offset;
        break;
      case 'afterEarlier':
        next = (times.length === 0 ? t : times[step.size % times.length]!) + windowMs + step.offset;
        break;
      case 'idle':
        next = t + windowMs + (step.size % (3 * windowMs));
        break;
    }
    t = Math.max(t, next);
    for (let i = 0; i < step.burst; i++) times.push(t);
  }
  return times;
};

/** Non-decreasing request times for `rules`. */
export const scheduleArb = (
  rules: readonly QuotaRule[],
  options: { readonly maxSteps?: number; readonly maxBurst?: number } = {},
): fc.Arbitrary<number[]> => {
  const longest = Math.max(...rules.map((rule) => rule.windowMs));
  return fc
    .tuple(
      fc.constantFrom(...BASES),
      fc.nat({ max: 10 * longest }),
      fc.array(stepArb(options.maxBurst ?? 4), { maxLength: options.maxSteps ?? 150, size: 'max' }),
    )
    .map(([base, offset, steps]) => timesOf(rules, base + offset, steps));
};

export interface Scenario {
  readonly policy: QuotaPolicy;
  readonly times: number[];
}

/** Small rules, without a ban (or with one, when `withBan`), and a schedule for them. */
export const scenarioArb = (withBan = false): fc.Arbitrary<Scenario> =>
  fc
    .tuple(smallRulesArb, withBan ? fc.option(smallBanArb, { nil: undefined }) : fc.constant(undefined))
    .chain(([rules, ban]) =>
      scheduleArb(rules).map((times) => ({ policy: ban === undefined ? { rules } : { rules, ban }, times })),
    );

/** Granules of 1 s, 24 s and the day rule's 24 min: a spent rule that may still refuse when a ban ends. */
const longRuleArb: fc.Arbitrary<QuotaRule> = fc
  .record({ granule: fc.constantFrom(1_000, 24_000, 1_440_000), limit: fc.integer({ min: 1, max: 6 }) })
  .map(({ granule, limit }) => ({ name: 'long', limit, windowMs: 60 * granule }));

/** Bans shorter and longer than the rules' Retry-Afters: from a millisecond to two days. */
const anyBanArb: fc.Arbitrary<BanPolicy> = fc.record({
  strikes: fc.integer({ min: 1, max: 5 }),
  strikeWindowMs: fc.integer({ min: 1, max: 600_000 }),
  banMs: fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 2 * 86_400_000 })),
});

export interface BanScenario {
  readonly policy: QuotaPolicy & { readonly ban: BanPolicy };
  readonly times: number[];
}

/**
 * A banning policy whose rules may still be spent when a ban ends (a long rule, or the day
 * rule of a small real plan under the default ban), and a schedule for it whose bursts
 * strike and get the key banned.
 */
export const banScenarioArb: fc.Arbitrary<BanScenario> = fc.oneof(
  fc
    .tuple(smallRuleArb('short'), longRuleArb, fc.boolean(), anyBanArb)
    .chain(([short, long, longFirst, ban]) => {
      const rules = longFirst ? [long, short] : [short, long];
      return scheduleArb(rules, { maxBurst: 8 }).map((times) => ({ policy: { rules, ban }, times }));
    }),
  fc
    .constantFrom(enterprisePlan(1, 3), enterprisePlan(5, 8), STANDARD_PLANS.free)
    .chain(({ rules }) =>
      scheduleArb(rules, { maxSteps: 300, maxBurst: 25 }).map((times) => ({ policy: { rules, ban: DEFAULT_BAN_POLICY }, times })),
    ),
);

export interface PlanChangeScenario {
  /** The plans a key moves between, as the policies they decide with: the same windows and ban, other limits. */
  readonly policies: readonly QuotaPolicy[];
  /** Non-decreasing request times. */
  readonly times: readonly number[];
  /** Which policy decides each request: the plan changes just before each request whose policy differs from the one before. */
  readonly policyAt: readonly number[];
}

interface PlanChangeOptions {
  /** Most steps of the schedule, each a burst of requests at one time (scheduleArb's default unless told). */
  readonly maxSteps?: number;
}

/** The policy of each request: most keep the one before, about one in eight moves to another. */
export const policyAtArb = (policies: number, requests: number): fc.Arbitrary<number[]> =>
  fc
    .tuple(
      fc.nat({ max: policies - 1 }),
      fc.array(fc.oneof({ arbitrary: fc.constant(undefined), weight: 7 }, fc.nat({ max: policies - 1 })), {
        minLength: requests,
        maxLength: requests,
      }),
    )
    .map(([first, moves]) => {
      let current = first;
      return moves.map((move) => (current = move ?? current));
    });

const planChangesOf = (
  rulesOfPlans: readonly (readonly QuotaRule[])[],
  ban: BanPolicy | undefined,
  options: PlanChangeOptions,
  maxBurst: number,
): fc.Arbitrary<PlanChangeScenario> => {
  const policies = rulesOfPlans.map((rules): QuotaPolicy => (ban === undefined ? { rules } : { rules, ban }));
  return scheduleArb(rulesOfPlans[0]!, { ...options, maxBurst }).chain((times) =>
    policyAtArb(policies.length, times.length).map((policyAt) => ({ policies, times, policyAt })),
  );
};

/** `rules` with limits drawn again, from 1 to 8: another plan of the same windows. */
export const otherLimitsArb = (rules: readonly QuotaRule[]): fc.Arbitrary<readonly QuotaRule[]> =>
  fc.tuple(...rules.map((rule) => fc.integer({ min: 1, max: 8 }).map((limit): QuotaRule => ({ ...rule, limit }))));

/**
 * A key whose plan changes at random times among two to four plans of the same windows (a
 * plan changes limits, never windows): small rules, or a short rule beside a long one still
 * spent when a ban ends; with or without a ban.
 */
export const planChangeScenarioArb = (options: PlanChangeOptions = {}): fc.Arbitrary<PlanChangeScenario> =>
  fc
    .oneof(
      { arbitrary: fc.tuple(smallRulesArb, fc.option(smallBanArb, { nil: undefined })), weight: 2 },
      fc.tuple(
        fc.tuple(smallRuleArb('short'), longRuleArb).map((rules): readonly QuotaRule[] => rules),
        anyBanArb.map((ban): BanPolicy | undefined => ban),
      ),
    )
    .chain(([rules, ban]) =>
      fc.array(otherLimitsArb(rules), { minLength: 1, maxLength: 3 }).chain((others) => planChangesOf([rules, ...others], ban, options, 8)),
    );

/** A key moving between real plans (and small enterprise ones, so that it is refused) under the default ban. */
export const realPlanChangeScenarioArb = (options: PlanChangeOptions = {}): fc.Arbitrary<PlanChangeScenario> =>
  fc
    .shuffledSubarray([STANDARD_PLANS.free, STANDARD_PLANS.pro, enterprisePlan(1, 3), enterprisePlan(5, 8), enterprisePlan(2, 40)], { minLength: 2 })
    .chain((plans) => planChangesOf(plans.map((plan) => plan.rules), DEFAULT_BAN_POLICY, options, 25));

/** Two to four small rules, each enforced or (one in three) in shadow. */
export const modedRulesArb: fc.Arbitrary<readonly QuotaRule[]> = fc
  .array(fc.tuple(smallRuleArb('r'), fc.oneof({ arbitrary: fc.constant<RuleMode>('enforce'), weight: 2 }, fc.constant<RuleMode>('shadow'))), {
    minLength: 2,
    maxLength: 4,
  })
  .map((rules) => rules.map(([rule, mode], i): QuotaRule => ({ ...rule, name: `r${i}`, mode })));

/**
 * A request's cost under `rules`: mostly one per rule, each from 0 (the request does not match
 * the rule; often) to the rule's limit; now and then one number for every rule.
 */
export const ruleCostsArb = (rules: readonly QuotaRule[]): fc.Arbitrary<number | RuleCosts> => {
  const smallest = Math.min(...rules.map((rule) => rule.limit));
  return fc.oneof(
    { arbitrary: fc.tuple(...rules.map((rule) => fc.oneof(fc.constant(0), fc.integer({ min: 0, max: rule.limit })))), weight: 4 },
    fc.integer({ min: 0, max: smallest }),
  );
};

/**
 * A small burst rule, so buckets fill: 1 to 6 units refilling in a whole number of
 * milliseconds, often not a multiple of the limit (an emission interval of a fraction of a ms).
 */
export const smallBurstRuleArb = (name: string): fc.Arbitrary<QuotaRule> =>
  fc
    .record({
      windowMs: fc.oneof(fc.integer({ min: 1, max: 120 }), fc.constantFrom(1_000, 1_500, 7_001, 60_000)),
      limit: fc.integer({ min: 1, max: 6 }),
    })
    .map(({ windowMs, limit }): QuotaRule => ({ name, limit, windowMs, kind: 'burst' }));

/** Two to four small rules, windows and bursts (at least one burst), each enforced or (one in three) in shadow. */
export const burstAndWindowRulesArb: fc.Arbitrary<readonly QuotaRule[]> = fc
  .array(
    fc.tuple(
      fc.oneof(smallBurstRuleArb('r'), smallRuleArb('r')),
      fc.oneof({ arbitrary: fc.constant<RuleMode>('enforce'), weight: 2 }, fc.constant<RuleMode>('shadow')),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .chain((rules) => smallBurstRuleArb('r').map((burst) => [...rules, [burst, 'enforce'] as const]))
  .chain((rules) => fc.shuffledSubarray(rules, { minLength: rules.length }))
  .map((rules) => rules.map(([rule, mode], i): QuotaRule => ({ ...rule, name: `r${i}`, mode })));

/**
 * A key whose plan changes at random times among two to four plans of rules mixing windows and
 * bursts, the same kinds and windows with other limits; with or without a ban.
 */
export const burstPlanChangeScenarioArb = (options: PlanChangeOptions = {}): fc.Arbitrary<PlanChangeScenario> =>
  fc
    .tuple(
      fc.oneof(
        fc.tuple(smallBurstRuleArb('burst')),
        fc.tuple(smallBurstRuleArb('burst'), smallRuleArb('window')),
        fc.tuple(smallRuleArb('window'), smallBurstRuleArb('burst')),
      ),
      fc.option(smallBanArb, { nil: undefined }),
    )
    .chain(([rules, ban]) =>
      fc.array(otherLimitsArb(rules), { minLength: 1, maxLength: 3 }).chain((others) => planChangesOf([rules, ...others], ban, options, 8)),
    );
