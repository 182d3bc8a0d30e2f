import type { Redis } from 'ioredis';
import { ROLES, type Role } from '../../domain/access/caller.js';
import { PLAN_NAMES, type PlanName } from '../../domain/quota/plan.js';
import type { QuotaRule } from '../../domain/quota/quota-rule.js';
import type { ApiKeyGrant, ApiKeyRegistry } from '../../ports/api-key-registry.js';
import { fromRedis } from './redis-failures.js';
import { assertValidKeyPrefix } from './redis-key-prefix.js';

/**
 * Key digests to grants, as JSON in one hash: one HGET per lookup. A record is the plan's
 * fields with the role beside them, `{name, rules, role}`; records written before keys had
 * roles lack `role` and are customers.
 */
export class RedisApiKeyRegistry implements ApiKeyRegistry {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${assertValidKeyPrefix(prefix)}api-keys`;
  }

  async grantOf(keyDigest: string): Promise<ApiKeyGrant | undefined> {
    const record = await fromRedis(this.redis, () => this.redis.hget(this.key, keyDigest));
    return record === null ? undefined : grantOf(record);
  }

  async register(keyDigest: string, { plan, role }: ApiKeyGrant): Promise<void> {
    const rules = plan.rules.map(({ name, limit, windowMs }) => ({ name, limit, windowMs }));
    await fromRedis(this.redis, () => this.redis.hset(this.key, keyDigest, JSON.stringify({ name: plan.name, rules, role })));
  }
}

const isPlanName = (value: unknown): value is PlanName => PLAN_NAMES.some((name) => name === value);

const isRole = (value: unknown): value is Role => ROLES.some((role) => role === value);

const isRule = (value: unknown): value is QuotaRule =>
  typeof value === 'object' &&
  value !== null &&
  'name' in value &&
  typeof value.name === 'string' &&
  'limit' in value &&
  typeof value.limit === 'number' &&
  'windowMs' in value &&
  typeof value.windowMs === 'number';

/** Records are written only by this class; a malformed one means the keyspace was tampered with. */
const grantOf = (record: string): ApiKeyGrant => {
  const fields: unknown = JSON.parse(record);
  if (typeof fields === 'object' && fields !== null && 'name' in fields && 'rules' in fields) {
    const { name, rules } = fields;
    const role = 'role' in fields ? fields.role : 'customer';
    if (isPlanName(name) && Array.isArray(rules) && rules.every(isRule) && isRole(role)) {
      const plan = Object.freeze({ name, rules: Object.freeze(rules.map((rule) => Object.freeze({ ...rule }))) });
      return Object.freeze({ plan, role });
    }
  }
  throw new Error('Malformed API key record in Redis');
};
