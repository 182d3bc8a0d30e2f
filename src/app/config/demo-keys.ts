import { randomBytes } from 'node:crypto';
import type { CreditRule } from '../../domain/credits/credit-rule.js';
import type { PlanCatalog } from '../../domain/quota/plan-parser.js';
import type { PlanRule } from '../../domain/quota/plan-rules.js';
import { enterprisePlan, PLAN_NAMES, STANDARD_PLANS, type Plan } from '../../domain/quota/plan.js';
import type { ConfiguredKey, PetStoreConfig } from './config.js';

/**
 * One fresh customer key per plan, built-in and of the plans file, so a newcomer can try every
 * plan without configuring anything, and one staff key (on pro) to try what only staff may do,
 * such as approving orders.
 */
function createDemoKeys(filePlans: PlanCatalog): ConfiguredKey[] {
  const key = (name: string): string => `demo-${name}-${randomBytes(12).toString('hex')}`;
  return [
    { key: key('free'), plan: STANDARD_PLANS.free, role: 'customer' },
    { key: key('pro'), plan: STANDARD_PLANS.pro, role: 'customer' },
    { key: key('business'), plan: STANDARD_PLANS.business, role: 'customer' },
    { key: key('enterprise'), plan: enterprisePlan(5_000, 1_000_000), role: 'customer' },
    ...[...filePlans.values()].map((plan): ConfiguredKey => ({ key: key(plan.name), plan, role: 'customer' })),
    { key: key('staff'), plan: STANDARD_PLANS.pro, role: 'staff' },
  ];
}

/** A development server configured with no key gets the demo keys; every other configuration is kept as it is. */
export function withDemoKeys(config: PetStoreConfig): { readonly config: PetStoreConfig; readonly demoKeys: readonly ConfiguredKey[] } {
  if (config.environment !== 'development' || config.apiKeys.length > 0) return { config, demoKeys: [] };
  const demoKeys = createDemoKeys(config.plans);
  return { config: { ...config, apiKeys: demoKeys }, demoKeys };
}

const WINDOW_UNITS = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
] as const;

/** A window as a plans file may spell it: the largest unit that divides it (`1h`, `15s`), else milliseconds. */
const windowText = (windowMs: number): string => {
  const unit = WINDOW_UNITS.find(([, ms]) => windowMs % ms === 0);
  return unit === undefined ? `${windowMs}ms` : `${windowMs / unit[1]}${unit[0]}`;
};

/** `search 10/1m on listPets`, `budget 300/1m cost createPet 5, default 1`, `burst 50/5s bucket` (refilled in 5 s), `... shadow`, `... refund 5xx 404`. */
const ruleText = ({ name, limit, windowMs, kind, match, cost, mode, refund }: PlanRule): string => {
  let text = `${name} ${limit}/${windowText(windowMs)}`;
  if (kind === 'burst') text += ' bucket';
  if (match !== undefined) text += ` on ${match.join(' ')}`;
  if (typeof cost === 'number') text += ` cost ${cost}`;
  else if (cost !== undefined) text += ` cost ${Object.entries(cost).map(([operation, units]) => `${operation} ${units}`).join(', ')}`;
  if (mode === 'shadow') text += ' shadow';
  if (refund !== undefined) text += ` refund ${refund.join(' ')}`;
  return text;
};

const refillText = ({ refill }: CreditRule): string => {
  if (refill === undefined) return 'once';
  return refill === 'month' ? 'a month' : `every ${windowText(refill)}`;
};

/**
 * What a key's plan limits, as the start announcement prints it: the built-in plans' two
 * numbers as always (`60/min, 1000/day`), a file plan's every rule (`hour 60/1h; search 10/1m on listPets`), its
 * concurrency cap (`inflight 10 in flight`) and its credits last (`monthly 10000 credits a month`).
 */
export const planLimitsText = (plan: Plan): string => {
  if ((PLAN_NAMES as readonly string[]).includes(plan.name)) {
    const [perMinute, perDay] = plan.rules.map((rule) => rule.limit);
    return `${perMinute}/min, ${perDay}/day`;
  }
  const rules = plan.rules.map(ruleText);
  const cap = plan.concurrency;
  if (cap !== undefined) rules.push(`${cap.name} ${cap.limit} in flight${cap.match === undefined ? '' : ` on ${cap.match.join(' ')}`}`);
  const credits = plan.credits;
  if (credits !== undefined) rules.push(`${credits.name} ${credits.credits} credits ${refillText(credits)}${credits.match === undefined ? '' : ` on ${credits.match.join(' ')}`}`);
  return rules.join('; ');
};

/** The demo keys' lines of the start announcement: label, key and limits, the labels padded to the widest. */
export const demoKeyLines = (demoKeys: readonly ConfiguredKey[]): string[] => {
  const labels = demoKeys.map(({ plan, role }) => (role === 'staff' ? `${plan.name} staff` : plan.name));
  const width = Math.max(0, ...labels.map((label) => label.length));
  return demoKeys.map(({ key, plan }, i) => `  ${labels[i]!.padEnd(width)} ${key}  (${planLimitsText(plan)})`);
};
