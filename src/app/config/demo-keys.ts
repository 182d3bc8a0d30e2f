import { randomBytes } from 'node:crypto';
import { enterprisePlan, STANDARD_PLANS } from '../../domain/quota/plan.js';
import type { ConfiguredKey } from './config.js';

/**
 * One fresh customer key per plan, so a newcomer can try every plan without configuring
 * anything, and one staff key (on pro) to try what only staff may do, such as approving orders.
 */
export function createDemoKeys(): ConfiguredKey[] {
  const key = (name: string): string => `demo-${name}-${randomBytes(12).toString('hex')}`;
  return [
    { key: key('free'), plan: STANDARD_PLANS.free, role: 'customer' },
    { key: key('pro'), plan: STANDARD_PLANS.pro, role: 'customer' },
    { key: key('business'), plan: STANDARD_PLANS.business, role: 'customer' },
    { key: key('enterprise'), plan: enterprisePlan(5_000, 1_000_000), role: 'customer' },
    { key: key('staff'), plan: STANDARD_PLANS.pro, role: 'staff' },
  ];
}
