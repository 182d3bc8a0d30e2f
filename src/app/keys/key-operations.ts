import { digestApiKey } from '../../adapters/api-key-digest.js';
import { isBurst } from '../../domain/quota/burst-bucket.js';
import { overridesText } from '../../domain/keys/key-overrides.js';
import { editOverrides, NO_OVERRIDE_EDITS, type OverrideEdits, type OverrideProblem } from '../../domain/quota/override-edits.js';
import { DAY_MS, type Plan } from '../../domain/quota/plan.js';
import { hasOverrides, withOverrides, type RuleOverrides } from '../../domain/quota/rule-overrides.js';
import type { QuotaDecision } from '../../domain/quota/quota-decision.js';
import type { BanPolicy } from '../../domain/quota/quota-rule.js';
import { keySubject } from '../../domain/quota/request-admission.js';
import { err, ok, type Result } from '../../domain/result.js';
import { stateOf, type KeyAdmin, type KeyChanges, type KeyState, type ManagedApiKey, type StoredApiKey } from '../../ports/api-key-registry.js';
import type { KeyStanding } from '../../adapters/key-view.js';
import type { Clock } from '../../ports/clock.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import type { CreditLedger } from '../../ports/credit-ledger.js';
import type { KeyOptions, NewKeyRequest } from '../../domain/keys/key-fields.js';
import { KeyCredits } from './key-credits.js';
import { peekKeyUsage } from './key-usage.js';

export interface KeyOperationsDependencies {
  readonly admin: KeyAdmin;
  /** The time keys are created, updated and revoked at. */
  readonly clock: Clock;
  /** The quota store the servers count in: usage is read there (peeked, never counted). Resolved only by the verbs that need it. */
  quotas(): Promise<QuotaStore>;
  /** The credit ledger the servers spend from: resolved only by the verbs on credits. */
  credits(): Promise<CreditLedger>;
  /** The servers' ban policy, which a key's standing is read under. */
  readonly ban: BanPolicy;
  /** `bytes` random bytes, for new secrets and ids. */
  randomBytes(bytes: number): Uint8Array;
  /** Told of each change a verb made, once it is stored: the audit line of who changed which key. */
  readonly changed: (change: KeyChange) => void;
}

/** A key change as the audit log tells it: the key's id, the verb, and what it set. Never a secret nor a digest. */
export interface KeyChange {
  readonly keyId: string;
  readonly change: 'created' | 'updated' | 'rolled' | 'unbanned' | 'reset' | 'revoked' | 'credits_changed';
  /** What the change set: plan, limits, overrides, role, label, expiry, grace; a balance's rule, before and after; absent fields did not change. */
  readonly details: Readonly<Record<string, string | number>>;
}

const planDetails = (plan: Plan | undefined): Record<string, string | number> =>
  plan === undefined ? {} : { plan: plan.name, ...Object.fromEntries(plan.rules.map((rule) => [`${rule.name}Limit`, rule.limit])) };

/** The key's overrides after the change, as `--limit` values (`search=60,burst=5:shadow`, or `none`). */
const overridesDetails = (overrides: RuleOverrides | undefined): Record<string, string> =>
  overrides === undefined ? {} : { overrides: overridesText(overrides) };

const isoOf = (ms: number): string => new Date(ms).toISOString();

/** What a page of keys is asked for: its size, the id of the key before it, and a plan's name and a state to list only. */
export interface KeyListQuery {
  readonly limit: number;
  readonly after?: string;
  readonly plan?: string;
  readonly state?: KeyState;
}

/** A key just made or rolled: the secret is in no store and is shown this once. */
export interface IssuedSecret {
  readonly key: ManagedApiKey;
  readonly secret: string;
}

/** Why a verb changed nothing: no key has the id, or the key is revoked (and stays so). */
export type KeyRefusal = 'not_found' | 'revoked';

/** Overrides that do not fit the key's plan (after the change): nothing was changed. */
export interface OverridesRefused {
  readonly overrides: OverrideProblem;
}

/** What `create` names a key: `key_` and 16 hex digits. Nothing else names one, so nothing else is looked up. */
const KEY_ID = /^key_[0-9a-f]{16}$/;
export const isKeyId = (id: string): boolean => KEY_ID.test(id);

/** A new secret: `ps_` and 32 random bytes. */
const newSecret = (random: KeyOperationsDependencies['randomBytes']): string => `ps_${Buffer.from(random(32)).toString('base64url')}`;

/**
 * Requests counted in a rule's window: its limit less what remains. During a ban nothing
 * remains whatever was counted, so it is not known; a rule counted past a lower limit a plan
 * change brought shows that limit.
 */
const usedOf = (usage: QuotaDecision, rule: number, limit: number): number | undefined =>
  usage.verdict === 'banned' ? undefined : limit - (usage.remaining[rule] ?? 0);

/**
 * The verbs of key management, once, for the `petstore keys` command and the admin API: each
 * answers what it did or why it did nothing, and the front end words it.
 */
export class KeyOperations {
  /** A key's credits read, set and topped up, and the usage ledger's export. */
  readonly credits: KeyCredits;

  constructor(private readonly deps: KeyOperationsDependencies) {
    const { admin, clock, credits, changed } = deps;
    this.credits = new KeyCredits({
      admin,
      clock,
      credits,
      changed: ({ keyId, rule, before, after, change }) => changed({ keyId, change: 'credits_changed', details: { rule, before, after, ...change } }),
    });
  }

  /** Refused, creating nothing, when its overrides do not fit its plan. */
  async create(request: NewKeyRequest): Promise<Result<IssuedSecret, OverridesRefused>> {
    const { admin, clock, randomBytes } = this.deps;
    const overrides = editOverrides(request.plan, undefined, request.overrides ?? NO_OVERRIDE_EDITS);
    if (!overrides.ok) return err({ overrides: overrides.error });
    const secret = newSecret(randomBytes);
    const createdAt = clock.now();
    const key: ManagedApiKey = {
      id: `key_${Buffer.from(randomBytes(8)).toString('hex')}`,
      label: request.label,
      plan: request.plan,
      ...(hasOverrides(overrides.value) ? { overrides: overrides.value } : {}),
      role: request.role,
      createdAt,
      ...(request.expiresInMs === undefined ? {} : { expiresAt: createdAt + request.expiresInMs }),
    };
    await admin.createKey(digestApiKey(secret), key);
    this.deps.changed({
      keyId: key.id,
      change: 'created',
      details: {
        ...planDetails(key.plan),
        ...overridesDetails(key.overrides),
        role: key.role,
        label: key.label,
        ...(key.expiresAt === undefined ? {} : { expiresAt: isoOf(key.expiresAt) }),
      },
    });
    return ok({ key, secret });
  }

  /**
   * Refused, changing nothing, when the key's overrides would not fit its plan after the change:
   * those it sets, and those it keeps through a change of plan (which must unset any naming a
   * rule the new plan has not).
   */
  async update(id: string, { expiresInMs, overrides: edits, ...options }: KeyOptions): Promise<Result<ManagedApiKey, KeyRefusal | OverridesRefused>> {
    const overrides = await this.overridesAfter(id, options.plan, edits);
    if (!overrides.ok) return overrides;
    const at = this.deps.clock.now();
    const changes: KeyChanges = {
      ...options,
      ...(overrides.value === undefined ? {} : { overrides: overrides.value }),
      ...(expiresInMs === undefined ? {} : { expiresAt: at + expiresInMs }),
    };
    const outcome = await this.deps.admin.updateKey(id, changes, at);
    if (typeof outcome === 'string') return err(outcome);
    const { plan, role, label, expiresAt } = changes;
    this.deps.changed({
      keyId: id,
      change: 'updated',
      details: {
        ...planDetails(plan),
        ...overridesDetails(changes.overrides),
        ...(role === undefined ? {} : { role }),
        ...(label === undefined ? {} : { label }),
        ...(expiresAt === undefined ? {} : { expiresAt: isoOf(expiresAt) }),
      },
    });
    return ok(outcome.updated);
  }

  async show(id: string): Promise<Result<KeyStanding, 'not_found'>> {
    const stored = await this.deps.admin.findKey(id);
    return stored === undefined ? err('not_found') : ok(await this.standingOf(await this.deps.quotas(), stored));
  }

  /** Every managed key, oldest first, with its standing. */
  async list(): Promise<KeyStanding[]> {
    const stored = await this.deps.admin.listKeys();
    if (stored.length === 0) return [];
    const quotas = await this.deps.quotas();
    return Promise.all(stored.map((key) => this.standingOf(quotas, key)));
  }

  /**
   * Lifts the key's ban; `not_banned`, changing nothing, when it has none. Every store keeps a
   * ban in the key's one quota state, so its counters and strikes go with it (as reset's).
   */
  async unban(id: string): Promise<Result<ManagedApiKey, 'not_found' | 'not_banned'>> {
    const stored = await this.deps.admin.findKey(id);
    if (stored === undefined) return err('not_found');
    const quotas = await this.deps.quotas();
    if ((await peekKeyUsage(quotas, stored, this.deps.ban)).verdict !== 'banned') return err('not_banned');
    await quotas.reset(keySubject(stored.digest));
    this.deps.changed({ keyId: id, change: 'unbanned', details: {} });
    return ok(stored.key);
  }

  /**
   * A page of the managed keys, oldest first, with their standings: at most `limit` of those
   * after the key `after` (an id `list` answered) of the plan and in the state asked; `more` when
   * others follow. Only the page's keys are read in the quota store. Refused `unknown_cursor`
   * when no key has the id `after`.
   */
  async listPage(query: KeyListQuery): Promise<Result<{ readonly standings: KeyStanding[]; readonly more: boolean }, 'unknown_cursor'>> {
    const stored = await this.deps.admin.listKeys();
    const start = query.after === undefined ? 0 : stored.findIndex(({ key }) => key.id === query.after) + 1;
    if (start === 0 && query.after !== undefined) return err('unknown_cursor');
    const now = this.deps.clock.now();
    const matching = stored
      .slice(start)
      .filter(({ key }) => (query.plan === undefined || key.plan.name === query.plan) && (query.state === undefined || stateOf(key, now) === query.state));
    const page = matching.slice(0, query.limit);
    if (page.length === 0) return ok({ standings: [], more: false });
    const quotas = await this.deps.quotas();
    return ok({ standings: await Promise.all(page.map((key) => this.standingOf(quotas, key))), more: matching.length > page.length });
  }

  /** Starts the key's quota over, banned or not: counters, strikes and any ban. */
  async reset(id: string): Promise<Result<ManagedApiKey, 'not_found'>> {
    const stored = await this.deps.admin.findKey(id);
    if (stored === undefined) return err('not_found');
    await (await this.deps.quotas()).reset(keySubject(stored.digest));
    this.deps.changed({ keyId: id, change: 'reset', details: {} });
    return ok(stored.key);
  }

  /** The key as revoked; `alreadyRevoked` when it was before this call (nothing changed). */
  async revoke(id: string): Promise<Result<{ readonly key: ManagedApiKey; readonly alreadyRevoked: boolean }, 'not_found'>> {
    const outcome = await this.deps.admin.revokeKey(id, this.deps.clock.now());
    if (outcome === 'not_found') return err('not_found');
    const stored = await this.deps.admin.findKey(id);
    if (stored === undefined) return err('not_found');
    // Revoking a revoked key changes nothing, so it is no change to tell.
    if (outcome === 'revoked') this.deps.changed({ keyId: id, change: 'revoked', details: {} });
    return ok({ key: stored.key, alreadyRevoked: outcome === 'already_revoked' });
  }

  /**
   * A new secret for the key: same id, plan, usage and label. The previous secret is accepted
   * until `graceMs` from now (0: no longer); both count against the key's one quota.
   */
  async roll(id: string, graceMs: number): Promise<Result<IssuedSecret, KeyRefusal>> {
    const secret = newSecret(this.deps.randomBytes);
    const at = this.deps.clock.now();
    const outcome = await this.deps.admin.rollKey(id, digestApiKey(secret), at + graceMs, at);
    if (typeof outcome === 'string') return err(outcome);
    this.deps.changed({ keyId: id, change: 'rolled', details: { previousKeyUntil: isoOf(at + graceMs) } });
    return ok({ key: outcome.rolled, secret });
  }

  /**
   * The overrides an update leaves the key, checked against its plan after the update: undefined
   * when it sets or unsets none (they stay as they are). The key is read only when its plan or
   * its overrides change.
   */
  private async overridesAfter(
    id: string,
    plan: Plan | undefined,
    edits: OverrideEdits | undefined,
  ): Promise<Result<RuleOverrides | undefined, KeyRefusal | OverridesRefused>> {
    if (plan === undefined && edits === undefined) return ok(undefined);
    const stored = await this.deps.admin.findKey(id);
    if (stored === undefined) return err('not_found');
    if (stored.key.revokedAt !== undefined) return err('revoked');
    const next = editOverrides(plan ?? stored.key.plan, stored.key.overrides, edits ?? NO_OVERRIDE_EDITS);
    if (!next.ok) return err({ overrides: next.error });
    return ok(edits === undefined ? undefined : next.value);
  }

  private async standingOf(quotas: QuotaStore, stored: StoredApiKey): Promise<KeyStanding> {
    const usage = await peekKeyUsage(quotas, stored, this.deps.ban);
    const { key } = stored;
    return {
      key,
      rules: withOverrides(key.plan, key.overrides).rules.map((rule, index) => {
        const resetAt = usage.resetAt[index] ?? usage.decidedAt;
        return {
          name: rule.name,
          limit: rule.limit,
          used: usedOf(usage, index, rule.limit),
          remaining: usage.remaining[index] ?? 0,
          resetAt: resetAt > usage.decidedAt ? resetAt : undefined,
        };
      }),
      bannedUntil: usage.verdict === 'banned' ? usage.retryAt : undefined,
      strikes: usage.strikes,
    };
  }
}

/** Requests counted today (the plan's day rule, a window: a bucket refilling in a day holds no day's count): the `used today` of a list. */
export const usedToday = ({ key, rules }: KeyStanding): number | undefined =>
  rules[key.plan.rules.findIndex((rule) => rule.windowMs === DAY_MS && !isBurst(rule))]?.used;
