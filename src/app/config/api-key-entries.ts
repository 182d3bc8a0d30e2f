import { ROLES, type Role } from '../../domain/access/caller.js';
import { MAX_RULE_LIMIT } from '../../domain/quota/decidable-policy.js';
import { NO_FILE_PLANS, parsePlan, type PlanCatalog, type PlanText } from '../../domain/quota/plan-parser.js';
import { STANDARD_PLANS, type Plan } from '../../domain/quota/plan.js';
import { err, ok, type Result } from '../../domain/result.js';

export interface ConfiguredKey {
  readonly key: string;
  readonly plan: Plan;
  readonly role: Role;
}

/** A PETSTORE_API_KEYS entry as written: its plan is resolved once the plans file is read (resolveApiKeys). */
export interface ApiKeyEntry {
  readonly key: string;
  readonly plan: PlanText;
  readonly role: Role;
}

/** PETSTORE_API_KEYS: comma-separated entries, each read by parseApiKey; their plans are names until resolveApiKeys. */
export function parseApiKeys(raw: string): Result<ApiKeyEntry[], string> {
  const keys: ApiKeyEntry[] = [];
  const seen = new Set<string>();
  for (const [index, entry] of raw.split(',').entries()) {
    const parsed = parseApiKey(entry.trim());
    if (!parsed.ok) return err(`entry ${index + 1}: ${parsed.error}`);
    if (seen.has(parsed.value.key)) return err(`entry ${index + 1}: the same key is listed twice`);
    seen.add(parsed.value.key);
    keys.push(parsed.value);
  }
  return ok(keys);
}

/** Each entry with the plan it names, built in or one of `plans` (PETSTORE_PLANS); every entry naming no plan is a mistake of its own. */
export function resolveApiKeys(entries: readonly ApiKeyEntry[], plans: PlanCatalog): Result<ConfiguredKey[], string[]> {
  const keys: ConfiguredKey[] = [];
  const problems: string[] = [];
  for (const [index, { key, plan: text, role }] of entries.entries()) {
    const plan = planFromEntry(text, plans);
    if (plan.ok) keys.push({ key, plan: plan.value, role });
    else problems.push(`entry ${index + 1}: ${plan.error}`);
  }
  return problems.length === 0 ? ok(keys) : err(problems);
}

/** A key as a PETSTORE_API_KEYS entry, the shape parseApiKey reads: how a supervisor hands its demo keys to its workers. */
export function apiKeyEntry({ key, plan, role }: ConfiguredKey): string {
  const limits = plan.name === 'enterprise' ? plan.rules.map((rule) => `:${rule.limit}`).join('') : '';
  return `${key}:${plan.name}${limits}:${role}`;
}

const keyShape = (plans: PlanCatalog): string =>
  `expected KEY:PLAN[:ROLE] with PLAN one of ${[...Object.keys(STANDARD_PLANS), ...plans.keys()].join(', ')}, or KEY:enterprise:PER_MINUTE:PER_DAY[:ROLE]`;
const ENTERPRISE_SHAPE = 'an enterprise key is KEY:enterprise:PER_MINUTE:PER_DAY[:ROLE] with two positive whole numbers';

const MIN_KEY_LENGTH = 8;
const MAX_KEY_LENGTH = 256;
const KEY_PATTERN = new RegExp(`^[A-Za-z0-9._~+/=-]{${MIN_KEY_LENGTH},${MAX_KEY_LENGTH}}$`);

// Messages never echo the key itself, nor any other field: a misplaced comma can put a key anywhere.
function parseApiKey(entry: string): Result<ApiKeyEntry, string> {
  const [key = '', planName = '', ...rest] = entry.split(':');
  if (!KEY_PATTERN.test(key)) {
    return err(`the key must be ${MIN_KEY_LENGTH} to ${MAX_KEY_LENGTH} characters of letters, digits or ._~+/=-`);
  }
  // The role is an optional last field, after the two limits of an enterprise plan.
  const roleAt = planName === 'enterprise' ? 2 : 0;
  if (rest.length > roleAt + 1) return err(planName === 'enterprise' ? ENTERPRISE_SHAPE : keyShape(NO_FILE_PLANS));
  const [perMinute, perDay] = rest.slice(0, roleAt);
  const roleField = rest[roleAt];
  const role = roleField === undefined ? 'customer' : ROLES.find((known) => known === roleField);
  if (role === undefined) return err('ROLE, the last field, must be customer or staff');
  return ok({ key, plan: { name: planName, perMinute, perDay }, role });
}

const planFromEntry = (text: PlanText, plans: PlanCatalog): Result<Plan, string> => {
  const plan = parsePlan(text, plans);
  if (plan.ok) return plan;
  switch (plan.error.kind) {
    case 'limit_too_large':
      return err(`enterprise limits must be at most ${MAX_RULE_LIMIT}, the most a quota counter holds`);
    case 'limit_not_whole':
      return err(ENTERPRISE_SHAPE);
    case 'unknown_plan':
    case 'limits_not_allowed':
      return err(keyShape(plans));
  }
};
