import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { QuotaDecision } from '../../src/domain/quota/quota-decision.js';
import { type QuotaState, createQuotaState, decideQuota } from '../../src/domain/quota/quota-engine.js';
import type { QuotaPolicy } from '../../src/domain/quota/quota-rule.js';
import { cloneQuotaState } from '../support/clone-quota-state.js';
import { check } from '../support/fast-assertions.js';
import { banScenarioArb } from '../../src/testing/quota-schedules.js';
import { toldRetryAt } from '../support/retry-after.js';
import { runs, share } from '../support/property-runs.js';

const UNLIMITED = 0xffff_ffff;

/** Whether a request at `at` would be admitted, asked of a copy of `state`. */
const admitsAt = (state: QuotaState, policy: QuotaPolicy, at: number): boolean =>
  decideQuota(cloneQuotaState(state), policy, at).verdict === 'admitted';

/** `policy` with every rule but `index` out of the way and no ban policy: the ban in the state still holds. */
const onlyRule = (policy: QuotaPolicy, index: number): QuotaPolicy => ({
  rules: policy.rules.map((rule, i) => (i === index ? rule : { ...rule, limit: UNLIMITED })),
});

describe('bans and Retry-After', () => {
  it('a client that waits out every Retry-After it is given (whole seconds from the decision, rounded up) and otherwise sends whenever it likes earns no strike, is never banned, and is admitted at each Retry-After', () => {
    let refusals = 0;
    fc.assert(
      fc.property(banScenarioArb, ({ policy, times }) => {
        const state = createQuotaState(policy);
        // The schedule gives the gaps between sends; a refusal holds the client back until its Retry-After.
        let at = times[0] ?? 0;
        times.forEach((time, i) => {
          const decision = decideQuota(state, policy, at);
          check(decision.verdict !== 'banned', () => `banned at ${at}`);
          if (decision.verdict === 'rate_limited') {
            refusals++;
            at = toldRetryAt(decision);
            const back = decideQuota(state, policy, at);
            check(back.verdict === 'admitted', () => `refused at ${decision.decidedAt}, ${back.verdict} at its Retry-After ${at}`);
          }
          at += (times[i + 1] ?? time) - time;
        });
        check(state.strikes === null, () => 'struck');
      }),
      { numRuns: runs(2000) },
    );
    expect(refusals).toBeGreaterThan(share(200_000));
  });

  it("a ban's Retry-After covers the quota the key finds when the ban ends: a request at the Retry-After is admitted, none a millisecond before retryAt is, each rule resets when its remaining rises, and every answer during the ban says the same", () => {
    let bans = 0;
    let answersDuringBans = 0;
    let pastTheBan = 0;
    fc.assert(
      fc.property(banScenarioArb, ({ policy, times }) => {
        const state = createQuotaState(policy);
        let banning: QuotaDecision | undefined;
        for (const at of times) {
          const wasBanned = state.bannedUntil > at;
          const decision = decideQuota(state, policy, at);
          if (decision.verdict !== 'banned') continue;
          const { retryAt, remaining, resetAt } = decision;
          const where = (): string => `banned at ${at} until ${state.bannedUntil}: retryAt ${retryAt}, resets ${resetAt.join()}`;
          if (wasBanned && banning !== undefined) {
            // Nothing changes the state during a ban, so neither does the answer.
            answersDuringBans++;
            check(retryAt === banning.retryAt && resetAt.every((reset, i) => reset === banning!.resetAt[i]), where);
            continue;
          }
          banning = decision;
          bans++;
          check(retryAt >= state.bannedUntil, where);
          if (retryAt > state.bannedUntil) pastTheBan++;
          check(!admitsAt(state, policy, retryAt - 1), where);
          check(admitsAt(state, policy, retryAt), where);
          check(admitsAt(state, policy, toldRetryAt(decision)), where);
          policy.rules.forEach((_, i) => {
            // Nothing remains during a ban; a rule still spent when it ends resets when it admits again.
            check(remaining[i] === 0, where);
            check(!admitsAt(state, onlyRule(policy, i), resetAt[i]! - 1), where);
            check(admitsAt(state, onlyRule(policy, i), resetAt[i]!), where);
          });
          check(retryAt === Math.max(state.bannedUntil, ...resetAt), where);
        }
      }),
      { numRuns: runs(2000) },
    );
    // Enough bans, with answers during them and Retry-Afters past their end, to mean something.
    expect(bans).toBeGreaterThan(share(10_000));
    expect(answersDuringBans).toBeGreaterThan(share(100_000));
    expect(pastTheBan).toBeGreaterThan(share(5_000));
  });
});
