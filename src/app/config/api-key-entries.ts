import { ROLES, type Role } from '../../domain/access/caller.js';
import { MAX_RULE_LIMIT } from '../../domain/quota/decidable-policy.js';
import { parsePlan } from '../../domain/quota/plan-parser.js';
import type { Plan } from '../../domain/quota/plan.js';
import { err, ok, type Result } from '../../domain/result.js';

export interface ConfiguredKey {
  readonly key: string;
  readonly plan: Plan;
  readonly role: Role;
}

/** PETSTORE_API_KEYS: comma-separated entries, each read by parseApiKey. */
export function parseApiKeys(raw: string): Result<ConfiguredKey[], string> {
  const keys: ConfiguredKey[] = [];
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

/** A key as a PETSTORE_API_KEYS entry, the shape parseApiKey reads: how a supervisor hands its demo keys to its workers. */
export function apiKeyEntry({ key, plan, role }: ConfiguredKey): string {
  const limits = plan.name === 'enterprise' ? plan.rules.map((rule) => `:${rule.limit}`).join('') : '';
  return `${key}:${plan.name}${limits}:${role}`;
}

const KEY_SHAPE = 'expected KEY:PLAN[:ROLE] with PLAN one of free, pro, business, or KEY:enterprise:PER_MINUTE:PER_DAY[:ROLE]';
const ENTERPRISE_SHAPE = 'an enterprise key is KEY:enterprise:PER_MINUTE:PER_DAY[:ROLE] with two positive whole numbers';

const MIN_KEY_LENGTH = 8;
const MAX_KEY_LENGTH = 256;
const KEY_PATTERN = new RegExp(`^[A-Za-z0-9._~+/=-]{${MIN_KEY_LENGTH},${MAX_KEY_LENGTH}}$`);

// Messages never echo the key itself, nor any other field: a misplaced comma can put a key anywhere.
function parseApiKey(entry: string): Result<ConfiguredKey, string> {
  const [key = '', planName = '', ...rest] = entry.split(':');
  if (!KEY_PATTERN.test(key)) {
    return err(`the key must be ${MIN_KEY_LENGTH} to ${MAX_KEY_LENGTH} characters of letters, digits or ._~+/=-`);
  }
  // The role is an optional last field, after the two limits of an enterprise plan.
  const roleAt = planName === 'enterprise' ? 2 : 0;
  if (rest.length > roleAt + 1) return err(planName === 'enterprise' ? ENTERPRISE_SHAPE : KEY_SHAPE);
  const plan = planFromEntry(planName, rest.slice(0, roleAt));
  if (!plan.ok) return plan;
  const roleField = rest[roleAt];
  const role = roleField === undefined ? 'customer' : ROLES.find((known) => known === roleField);
  if (role === undefined) return err('ROLE, the last field, must be customer or staff');
  return ok({ key, plan: plan.value, role });
}

const planFromEntry = (name: string, [perMinute, perDay]: readonly string[]): Result<Plan, string> => {
  const plan = parsePlan({ name, perMinute, perDay });
  if (plan.ok) return plan;
  switch (plan.error.kind) {
    case 'limit_too_large':
      return err(`enterprise limits must be at most ${MAX_RULE_LIMIT}, the most a quota counter holds`);
    case 'limit_not_whole':
      return err(ENTERPRISE_SHAPE);
    case 'unknown_plan':
    case 'limits_not_allowed':
      return err(KEY_SHAPE);
  }
};
