import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { QuotaPolicy, QuotaRule, RuleCosts } from '../domain/quota/quota-rule.js';
import type { Clock } from '../ports/clock.js';
import type { QuotaStore } from '../ports/quota-store.js';
import type { Disposable } from './check.js';
import { ManualClock } from './manual-clock.js';
import { burstAndWindowRulesArb, modedRulesArb, otherLimitsArb, policyAtArb, scheduleArb, smallBanArb, smallRulesArb } from './quota-schedules.js';
import { ReferenceQuota } from './reference-quota.js';

/** One request of a schedule: when, of what cost, under which of the schedule's plans, through which instance. */
export interface QuotaRequest {
  readonly at: number;
  readonly cost: number | RuleCosts;
  /** Index into the schedule's policies: the key's plan changes between requests whose index differs. */
  readonly policy: number;
  /** Which of the store's instances (one `create` call each, sharing their counters) decides it. */
  readonly instance: number;
}

/** The plans a key moves between (the same windows, other limits) and its requests, their times never going back. */
export interface QuotaSchedule {
  readonly policies: readonly QuotaPolicy[];
  readonly requests: readonly QuotaRequest[];
}

export interface QuotaScheduleOptions {
  /** Instances a request may go through (1 unless told): a store shared by processes, as on one Redis. */
  readonly instances?: number;
  /** Most steps of the schedule, each a burst of requests at one time. */
  readonly maxSteps?: number;
  /** Rule kinds drawn: windows only, or windows, bursts (GCRA), shadow rules (the default). */
  readonly kinds?: 'windows' | 'all';
  /** Per-rule costs from 0 to the limit (the default), or 1 for every request. */
  readonly costs?: 'varied' | 'one';
  /** Whether a policy may ban (the default) or never does. */
  readonly bans?: boolean;
}

/** The costs of one request under `rules`, none above the smallest limit `limits` gives a rule across the plans. */
const costArb = (limits: readonly number[]): fc.Arbitrary<number | RuleCosts> =>
  fc.oneof(
    { arbitrary: fc.tuple(...limits.map((limit) => fc.oneof(fc.constant(0), fc.integer({ min: 0, max: limit })))), weight: 4 },
    fc.integer({ min: 0, max: Math.min(...limits) }),
  );

/**
 * Schedules that stress a limiter: small windows and buckets so they fill, requests in bursts
 * at granule and window edges and after idle gaps, costs per rule (0 included), a ban, a plan
 * change now and then, several instances. Shrinks towards few requests of cost one.
 */
export const quotaScheduleArb = (options: QuotaScheduleOptions = {}): fc.Arbitrary<QuotaSchedule> => {
  const instances = options.instances ?? 1;
  const rulesArb: fc.Arbitrary<readonly QuotaRule[]> =
    options.kinds === 'windows' ? smallRulesArb : fc.oneof({ arbitrary: smallRulesArb, weight: 2 }, modedRulesArb, burstAndWindowRulesArb);
  const banArb = options.bans === false ? fc.constant(undefined) : fc.option(smallBanArb, { nil: undefined });
  return fc
    .tuple(rulesArb, banArb)
    .chain(([rules, ban]) => fc.array(otherLimitsArb(rules), { maxLength: 2 }).map((others) => ({ plans: [rules, ...others], ban })))
    .chain(({ plans, ban }) => {
      const policies = plans.map((rules): QuotaPolicy => (ban === undefined ? { rules } : { rules, ban }));
      const limits = plans[0]!.map((_, i) => Math.min(...plans.map((rules) => rules[i]!.limit)));
      const cost = options.costs === 'one' ? fc.constant(1) : costArb(limits);
      return scheduleArb(plans[0]!, { maxSteps: options.maxSteps ?? 40 }).chain((times) =>
        fc
          .tuple(
            policyAtArb(policies.length, times.length),
            fc.array(fc.tuple(cost, fc.nat({ max: instances - 1 })), { minLength: times.length, maxLength: times.length }),
          )
          .map(([policyAt, drawn]) => ({
            policies,
            requests: times.map((at, i): QuotaRequest => ({ at, cost: drawn[i]![0], policy: policyAt[i]!, instance: drawn[i]![1] })),
          })),
      );
    });
};

const ruleText = (rule: QuotaRule): string =>
  `${rule.name}: ${rule.limit} per ${rule.windowMs} ms${rule.kind === 'burst' ? ' (burst)' : ''}${rule.mode === 'shadow' ? ' (shadow)' : ''}`;

const policyText = (policy: QuotaPolicy): string =>
  `${policy.rules.map(ruleText).join('; ')}${policy.ban === undefined ? '' : `; ban after ${policy.ban.strikes} strikes in ${policy.ban.strikeWindowMs} ms for ${policy.ban.banMs} ms`}`;

const answerText = (admitted: boolean): string => (admitted ? 'admitted' : 'refused');

/** One request as it ran, beside the model's answer: a line of a trace (`t=… request cost=… → admitted (model: refused)`). */
export interface TraceLine {
  readonly request: QuotaRequest;
  readonly admitted: boolean;
  readonly model: boolean;
}

/** A schedule as it ran, readable: its plans, then a line a request up to the first the limiter answered unlike the model. */
export const traceText = (schedule: QuotaSchedule, lines: readonly TraceLine[]): string => {
  const start = schedule.requests[0]?.at ?? 0;
  const plans = schedule.policies.map((policy, i) => `  plan ${i}: ${policyText(policy)}`);
  const several = schedule.policies.length > 1;
  const instances = lines.some(({ request }) => request.instance > 0);
  const steps = lines.map(({ request, admitted, model }) => {
    const where = `${several ? ` plan ${request.policy}` : ''}${instances ? ` instance ${request.instance}` : ''}`;
    const cost = typeof request.cost === 'number' ? String(request.cost) : `[${request.cost.join(',')}]`;
    return `  t=${request.at - start}${where} request cost=${cost} → ${answerText(admitted)}${admitted === model ? '' : ` (model: ${answerText(model)})`}`;
  });
  return [`time t in ms from ${start}`, ...plans, ...steps].join('\n');
};

/**
 * A limiter answered a request unlike the model: its message is the trace, `lines` the same as
 * data (the last one the disagreement). A failed property's Error has the shrunk case's as its `cause`.
 */
export class ModelDisagreement extends Error {
  override readonly name = 'ModelDisagreement';
  constructor(
    readonly schedule: QuotaSchedule,
    readonly lines: readonly TraceLine[],
  ) {
    const last = lines.at(-1);
    const what = last?.admitted === true ? 'admitted a request the model refuses (over-admission)' : 'refused a request the model admits (under-admission)';
    super(`the limiter ${what}:\n${traceText(schedule, lines)}`);
  }
}

/**
 * A limiter admitted more than a window rule's limit within one rolling window (any span shorter
 * than the rule's window): over the limit itself, not only over the model. Its message is the
 * trace up to the admission that went over; `held` what the window then held.
 */
export class LimitExceeded extends Error {
  override readonly name = 'LimitExceeded';
  constructor(
    readonly schedule: QuotaSchedule,
    readonly lines: readonly TraceLine[],
    readonly rule: QuotaRule,
    readonly held: number,
  ) {
    super(`the limiter admitted ${held} within ${rule.windowMs} ms, over the limit of ${rule.limit} of rule ${rule.name}:\n${traceText(schedule, lines)}`);
  }
}

/** Runs `schedule` through `admit` beside the model, and throws a ModelDisagreement at the first request they answer differently. */
const compare = async (schedule: QuotaSchedule, admit: (request: QuotaRequest) => Promise<boolean>): Promise<void> => {
  const model = new ReferenceQuota();
  const lines: TraceLine[] = [];
  for (const request of schedule.requests) {
    const policy = schedule.policies[request.policy]!;
    const expected = model.decide(policy, request.at, request.cost).verdict === 'admitted';
    const admitted = await admit(request);
    lines.push({ request, admitted, model: expected });
    if (admitted !== expected) throw new ModelDisagreement(schedule, lines);
  }
};

export interface PropertyOptions {
  /** Cases to run (100 unless told). */
  readonly numRuns?: number;
  /** fast-check's seed, to replay a failure it printed. */
  readonly seed?: number;
  /**
   * Start no case (and no shrinking step) after this many ms: for a limiter that only real time
   * moves (a store whose windows are key expiries), whose cases take as long as their schedules.
   * A failure found by then is still thrown, shrunk as far as the time allowed.
   */
  readonly timeLimitMs?: number;
}

/** What a property that held ran: fewer cases than asked when its time limit stopped it. */
export interface PropertyReport {
  readonly runs: number;
  readonly interrupted: boolean;
}

/**
 * Runs the property; a failure throws an Error whose message is the shrunk schedule's trace, and
 * how to replay it, and whose `cause` is that ModelDisagreement.
 */
const assertProperty = async (property: fc.IAsyncProperty<[QuotaSchedule]>, options: PropertyOptions): Promise<PropertyReport> => {
  const details = await fc.check(property, {
    numRuns: options.numRuns ?? 100,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false }),
  });
  if (!details.failed) return { runs: details.numRuns, interrupted: details.interrupted };
  // fast-check fails a run its time limit cut before any case held, with no counterexample: nothing was shown either way.
  if (details.counterexample === null && details.interrupted) {
    throw new Error(`the time limit (${options.timeLimitMs} ms) passed before any case finished: nothing was checked; give the property more time (timeLimitMs)`);
  }
  const cause = details.errorInstance;
  const cut = details.interrupted ? ', cut short by the time limit' : '';
  const replay = `(fast-check seed ${details.seed}, path "${details.counterexamplePath ?? ''}", shrunk ${details.numShrinks} times${cut})`;
  if (cause instanceof ModelDisagreement || cause instanceof LimitExceeded) throw new Error(`${cause.message}\n${replay}`, { cause });
  throw new Error(`the limiter threw on the schedule ${JSON.stringify(details.counterexample?.[0])}: ${String(cause)}\n${replay}`, { cause });
};

export interface QuotaStorePropertyOptions extends PropertyOptions, QuotaScheduleOptions {}

/**
 * Any QuotaStore decides every request of any schedule as the reference model does (verdicts:
 * admitted or not): it never admits more than the model allows, and never refuses what the model
 * must admit. `create` gets the clock the store reads its time from; with `instances` above 1 it
 * is called that many times a case, and the stores it makes must share their counters. Every
 * case decides for a subject of its own, so a shared store need not be emptied between cases.
 */
export const quotaStoreAgreesWithModel = async (
  create: (clock: Clock) => Promise<Disposable & { readonly store: QuotaStore }>,
  options: QuotaStorePropertyOptions = {},
): Promise<PropertyReport> => {
  const property = fc.asyncProperty(quotaScheduleArb(options), async (schedule) => {
    const clock = new ManualClock(schedule.requests[0]?.at ?? 0);
    const made: (Disposable & { readonly store: QuotaStore })[] = [];
    try {
      for (let i = 0; i < (options.instances ?? 1); i++) made.push(await create(clock));
      const subject = `quota-property:${randomUUID()}`;
      await compare(schedule, async (request) => {
        clock.set(request.at);
        const decision = await made[request.instance]!.store.decide(subject, schedule.policies[request.policy]!, request.cost);
        return decision.verdict === 'admitted';
      });
    } finally {
      for (const { cleanup } of made) await cleanup();
    }
  });
  return assertProperty(property, options);
};

/** A limiter as a function: may a request of `cost` by `subject` at `now` go through? */
export type LimiterFunction = (subject: string, cost: number, now: number) => boolean | Promise<boolean>;

export interface LimiterPropertyOptions extends PropertyOptions {
  /** Most steps of a schedule, each a burst of requests at one time. */
  readonly maxSteps?: number;
  /** Requests of cost 1 only (the default), or of costs from 1 to the limit. */
  readonly costs?: 'one' | 'varied';
}

/**
 * Any limiter function admits every request of any schedule as the reference model does under
 * `policy` (its rules the limiter's): never more than the model allows, never refusing what the
 * model must admit. `create` makes a fresh limiter for each case, or answers a shared one (every
 * case asks for a subject of its own); requests of cost 0 are never sent.
 */
export const limiterAgreesWithModel = async (
  policy: QuotaPolicy,
  create: () => LimiterFunction | Promise<LimiterFunction>,
  options: LimiterPropertyOptions = {},
): Promise<PropertyReport> => {
  const property = fc.asyncProperty(limiterScheduleArb(policy, options), async (schedule) => {
    const limiter = await create();
    const subject = `limiter-property:${randomUUID()}`;
    await compare(schedule, async (request) => limiter(subject, request.cost as number, request.at));
  });
  return assertProperty(property, options);
};

/**
 * Any limiter function keeps to every window rule of `policy`: within any span shorter than a
 * rule's window it admits at most the rule's limit in cost. Weaker than limiterAgreesWithModel
 * (it never asks a limiter to admit, and the model, counting its oldest sub-window whole, refuses
 * some requests an exact rolling window would take), so a limiter of another algorithm can pass
 * it, and a failure is over the limit itself. Burst rules are not checked (a bucket admits its
 * burst and then its refill, more than its limit in a window by design).
 */
export const limiterKeepsToLimits = async (
  policy: QuotaPolicy,
  create: () => LimiterFunction | Promise<LimiterFunction>,
  options: LimiterPropertyOptions = {},
): Promise<PropertyReport> => {
  const windows = policy.rules.filter((rule) => rule.kind !== 'burst');
  const property = fc.asyncProperty(limiterScheduleArb(policy, options), async (schedule) => {
    const limiter = await create();
    const subject = `limiter-property:${randomUUID()}`;
    const lines: TraceLine[] = [];
    for (const request of schedule.requests) {
      const admitted = await limiter(subject, request.cost as number, request.at);
      lines.push({ request, admitted, model: admitted });
      if (!admitted) continue;
      for (const rule of windows) {
        const inWindow = (line: TraceLine): boolean => line.admitted && request.at - line.request.at < rule.windowMs;
        const held = lines.reduce((sum, line) => (inWindow(line) ? sum + (line.request.cost as number) : sum), 0);
        if (held > rule.limit) throw new LimitExceeded(schedule, lines, rule, held);
      }
    }
  });
  return assertProperty(property, options);
};

/** The schedules of the limiter properties: one plan, bursts at its granules' and windows' edges, costs as asked. */
const limiterScheduleArb = (policy: QuotaPolicy, options: LimiterPropertyOptions): fc.Arbitrary<QuotaSchedule> => {
  const smallest = Math.min(...policy.rules.map((rule) => rule.limit));
  const cost = options.costs === 'varied' ? fc.integer({ min: 1, max: smallest }) : fc.constant(1);
  return scheduleArb(policy.rules, { maxSteps: options.maxSteps ?? 40 }).chain((times) =>
    fc.array(cost, { minLength: times.length, maxLength: times.length }).map((costs) => ({
      policies: [policy],
      requests: times.map((at, i): QuotaRequest => ({ at, cost: costs[i]!, policy: 0, instance: 0 })),
    })),
  );
};
