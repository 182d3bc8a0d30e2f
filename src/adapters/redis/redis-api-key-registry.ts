import type { Redis } from 'ioredis';
import { PLAN_NAMES, type Plan, type PlanName } from '../../domain/quota/plan.js';
import type { QuotaRule } from '../../domain/quota/quota-rule.js';
import type { ApiKeyRegistry } from '../../ports/api-key-registry.js';
import { fromRedis } from './redis-failures.js';
import { assertValidKeyPrefix } from './redis-key-prefix.js';

/** Key digests to plans, as JSON in one hash: one HGET per lookup. */
export class RedisApiKeyRegistry implements ApiKeyRegistry {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${assertValidKeyPrefix(prefix)}api-keys`;
  }

  async planOf(keyDigest: string): Promise<Plan | undefined> {
    const record = await fromRedis(this.redis, () => this.redis.hget(this.key, keyDigest));
    return record === null ? undefined : planOf(record);
  }

  async register(keyDigest: string, plan: Plan): Promise<void> {
    const rules = plan.rules.map(({ name, limit, windowMs }) => ({ name, limit, windowMs }));
    await fromRedis(this.redis, () => this.redis.hset(this.key, keyDigest, JSON.stringify({ name: plan.name, rules })));
  }
}

const isPlanName = (value: unknown): value is PlanName => PLAN_NAMES.some((name) => name === value);

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
const planOf = (record: string): Plan => {
  const fields: unknown = JSON.parse(record);
  if (typeof fields === 'object' && fields !== null && 'name' in fields && 'rules' in fields) {
    const { name, rules } = fields;
    if (isPlanName(name) && Array.isArray(rules) && rules.every(isRule)) {
      return Object.freeze({ name, rules: Object.freeze(rules.map((rule) => Object.freeze({ ...rule }))) });
    }
  }
  throw new Error('Malformed plan record in Redis');
};
