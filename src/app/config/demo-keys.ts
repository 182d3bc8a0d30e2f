import { randomBytes } from 'node:crypto';
import { enterprisePlan, STANDARD_PLANS } from '../../domain/quota/plan.js';
import type { ConfiguredKey, PetStoreConfig } from './config.js';

/**
 * One fresh customer key per plan, so a newcomer can try every plan without configuring
 * anything, and one staff key (on pro) to try what only staff may do, such as approving orders.
 */
function createDemoKeys(): ConfiguredKey[] {
  const key = (name: string): string => `demo-${name}-${randomBytes(12).toString('hex')}`;
  return [
    { key: key('free'), plan: STANDARD_PLANS.free, role: 'customer' },
    { key: key('pro'), plan: STANDARD_PLANS.pro, role: 'customer' },
    { key: key('business'), plan: STANDARD_PLANS.business, role: 'customer' },
    { key: key('enterprise'), plan: enterprisePlan(5_000, 1_000_000), role: 'customer' },
    { key: key('staff'), plan: STANDARD_PLANS.pro, role: 'staff' },
  ];
}

/** A development server configured with no key gets the demo keys; every other configuration is kept as it is. */
export function withDemoKeys(config: PetStoreConfig): { readonly config: PetStoreConfig; readonly demoKeys: readonly ConfiguredKey[] } {
  if (config.environment !== 'development' || config.apiKeys.length > 0) return { config, demoKeys: [] };
  const demoKeys = createDemoKeys();
  return { config: { ...config, apiKeys: demoKeys }, demoKeys };
}
