import { randomBytes } from 'node:crypto';
import { enterprisePlan, STANDARD_PLANS } from '../domain/quota/plan.js';
import type { ConfiguredKey } from './config.js';

/** One fresh key per plan, so a newcomer can try every plan without configuring anything. */
export function createDemoKeys(): ConfiguredKey[] {
  const key = (plan: string): string => `demo-${plan}-${randomBytes(12).toString('hex')}`;
  return [
    { key: key('free'), plan: STANDARD_PLANS.free },
    { key: key('pro'), plan: STANDARD_PLANS.pro },
    { key: key('business'), plan: STANDARD_PLANS.business },
    { key: key('enterprise'), plan: enterprisePlan(5_000, 1_000_000) },
  ];
}
