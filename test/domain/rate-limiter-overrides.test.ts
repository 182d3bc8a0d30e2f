import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryQuotaStore } from '../../src/adapters/memory/memory-quota-store.js';
import { DEFAULT_BAN_POLICY } from '../../src/domain/quota/ban-policy.js';
import type { QuotaRule } from '../../src/domain/quota/quota-rule.js';
import { createRateLimiter, type SubjectOverride } from '../../src/domain/quota/rate-limiter.js';
import { ManualClock } from '../support/manual-clock.js';
import { runs } from '../support/property-runs.js';
import { scheduleArb } from '../../src/testing/quota-schedules.js';

const RULES: readonly QuotaRule[] = [
  { name: 'minute', limit: 5, windowMs: 60_000 },
  { name: 'hour', limit: 20, windowMs: 3_600_000 },
];

/**
 * The documented rule, plainly: an override whose `subjects` has no `*` and equals the subject;
 * else the first whose pattern, as an anchored regular expression with `*` as `.*`, matches it;
 * else none (undefined).
 */
const modelPick = (overrides: readonly SubjectOverride[], subject: string): SubjectOverride | undefined =>
  overrides.find(({ subjects }) => !subjects.includes('*') && subjects === subject) ??
  overrides.find(({ subjects }) => {
    const source = subjects
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s\\S]*');
    return subjects.includes('*') && new RegExp(`^${source}$`).test(subject);
  });

/** The rules an override gives, by the model: each named rule's limit replaced. */
const rulesOf = (override: SubjectOverride | undefined): QuotaRule[] =>
  RULES.map((rule) => ({ ...rule, limit: override?.limits[rule.name] ?? rule.limit }));

/** Subjects and patterns over a small alphabet, so that patterns match often, and near misses abound. */
const textArb = (chars: string[], maxLength: number) => fc.array(fc.constantFrom(...chars), { maxLength }).map((list) => list.join(''));
const overrideArb: fc.Arbitrary<SubjectOverride> = fc.record({
  subjects: textArb(['a', 'b', ':', '*', '.'], 6).filter((text) => text !== ''),
  limits: fc.oneof(
    fc.record({ minute: fc.integer({ min: 1, max: 9 }) }),
    fc.record({ hour: fc.integer({ min: 1, max: 40 }) }),
    fc.record({ minute: fc.integer({ min: 1, max: 9 }), hour: fc.integer({ min: 1, max: 40 }) }),
  ),
});
const overridesArb = fc.uniqueArray(overrideArb, { maxLength: 6, selector: (override) => override.subjects });

/** Subjects at random, and subjects made from the patterns, each `*` filled (so they match it), then perhaps one character changed (so they nearly do). */
const subjectsArb = (overrides: readonly SubjectOverride[]): fc.Arbitrary<string[]> => {
  const fill = textArb(['a', 'b', ':', '.', '*'], 3);
  const made = overrides.map(({ subjects }) =>
    fc
      .tuple(fc.array(fill, { minLength: 8, maxLength: 8 }), fc.option(fc.tuple(fc.nat(), fc.constantFrom('a', 'b', ':', '')), { nil: undefined }))
      .map(([fills, change]) => {
        const filled = subjects.split('*').reduce((text, part, i) => (i === 0 ? part : `${text}${fills[i - 1] ?? ''}${part}`), '');
        if (change === undefined || filled === '') return filled;
        const at = change[0] % filled.length;
        return `${filled.slice(0, at)}${change[1]}${filled.slice(at + 1)}`;
      }),
  );
  return fc.tuple(fc.array(textArb(['a', 'b', ':', '.', '*'], 7), { maxLength: 10 }), ...made).map(([random, ...fromPatterns]) => [...random, ...fromPatterns]);
};

describe('a limiter with overrides by subject', () => {
  it('gives each subject the policy of the override naming it exactly, else of the first pattern matching it (* any run of characters), else its own rules: as a plain model picks it', () => {
    fc.assert(
      fc.property(overridesArb.chain((overrides) => fc.tuple(fc.constant(overrides), subjectsArb(overrides))), ([overrides, subjects]) => {
        const limiter = createRateLimiter({ rules: RULES, store: new MemoryQuotaStore(new ManualClock(0)), overrides });
        for (const subject of [...subjects, ...overrides.map((override) => override.subjects)]) {
          expect(limiter.policyFor(subject).rules, subject).toEqual(rulesOf(modelPick(overrides, subject)));
        }
      }),
      { numRuns: runs(2_000) },
    );
  });

  it('decides, counts, bans and writes the fields of each subject exactly as a limiter built with the limits its override gives, for any schedule over several subjects', () => {
    const overrides: SubjectOverride[] = [
      { subjects: 'partner:acme', limits: { minute: 2 } },
      { subjects: 'partner:*', limits: { minute: 8, hour: 30 } },
      { subjects: '*:eu', limits: { hour: 6 } },
    ];
    const subjects = ['partner:acme', 'partner:zed', 'ip:1:eu', 'partner:x:eu', 'ip:2'];
    const ban = { strikes: 3, strikeWindowMs: 60_000, banMs: 120_000 };
    const picksArb = fc.array(fc.nat({ max: subjects.length - 1 }), { minLength: 1, maxLength: 50 });
    fc.assert(
      fc.property(scheduleArb(RULES, { maxSteps: 80, maxBurst: 6 }), picksArb, (times, picks) => {
        const clock = new ManualClock(0);
        const limiter = createRateLimiter({ rules: RULES, store: new MemoryQuotaStore(clock), ban, overrides });
        const alone = subjects.map((subject) => createRateLimiter({ rules: rulesOf(modelPick(overrides, subject)), store: new MemoryQuotaStore(clock), ban }));
        times.forEach((at, i) => {
          clock.set(at);
          const which = picks[i % picks.length]!;
          const subject = subjects[which]!;
          const [got, want] = [limiter.check(subject), alone[which]!.check(subject)];
          expect(got, `${subject} at ${at}`).toEqual(want);
          expect(limiter.get(subject)).toEqual(alone[which]!.get(subject));
        });
      }),
      { numRuns: runs(300) },
    );
  });

  it('weighs a cost up to the smallest limit of the subject\'s own policy', () => {
    const limiter = createRateLimiter({ rules: RULES, store: new MemoryQuotaStore(new ManualClock(0)), overrides: [{ subjects: 'big:*', limits: { minute: 10 } }] });
    expect(limiter.check('big:1', 10).allowed).toBe(true);
    expect(() => limiter.check('small', 6)).toThrow('cost must be a whole number from 1 to 5');
  });

  it('refuses at creation, naming the override, a rule it has not, a limit out of range, no limits, no subjects, and subjects given twice', () => {
    const make = (overrides: unknown) => () =>
      createRateLimiter({ rules: RULES, store: new MemoryQuotaStore(new ManualClock(0)), ban: DEFAULT_BAN_POLICY, overrides: overrides as SubjectOverride[] });
    expect(make([{ subjects: 'partner:*', limits: { day: 5 } }])).toThrow(new RangeError('rate limiter override "partner:*": no rule is named "day" (the rules: minute, hour)'));
    expect(make([{ subjects: 'partner:*', limits: { minute: 0 } }])).toThrow(
      new RangeError('rate limiter override "partner:*": the limit of minute must be an integer from 1 to 4294967295, not 0'),
    );
    expect(make([{ subjects: 'p', limits: { hour: 1.5 } }])).toThrow(RangeError);
    expect(make([{ subjects: 'p', limits: { hour: 2 ** 32 } }])).toThrow(RangeError);
    expect(make([{ subjects: 'p', limits: {} }])).toThrow(new RangeError('rate limiter override "p": limits must name at least one rule: { minute: 100 }'));
    expect(make([{ subjects: '', limits: { minute: 1 } }])).toThrow(new RangeError('rate limiter override 0: subjects must be a subject or a pattern with *, not ""'));
    expect(make([{ subjects: 'a*', limits: { minute: 1 } }, { subjects: 'a*', limits: { hour: 1 } }])).toThrow(
      new RangeError('rate limiter override "a*": given twice; the first would always win'),
    );
    expect(make([])).not.toThrow();
  });

  it('without overrides decides every subject by its rules, the policy object shared', () => {
    const limiter = createRateLimiter({ rules: RULES, store: new MemoryQuotaStore(new ManualClock(0)) });
    expect(limiter.policyFor('partner:acme')).toBe(limiter.policy);
    const overridden = createRateLimiter({ rules: RULES, store: new MemoryQuotaStore(new ManualClock(0)), overrides: [{ subjects: 'p*', limits: { minute: 1 } }] });
    expect(overridden.policyFor('p1')).toBe(overridden.policyFor('p2'));
    expect(overridden.policyFor('q')).toBe(overridden.policy);
  });
});
