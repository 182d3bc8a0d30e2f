import { readFileSync } from 'node:fs';
import { MAX_CREDITS, type CreditRule, type RefillEvery } from '../../domain/credits/credit-rule.js';
import { MAX_CONCURRENCY, type ConcurrencyRule } from '../../domain/quota/concurrency-rule.js';
import { MAX_RULE_LIMIT } from '../../domain/quota/decidable-policy.js';
import type { PlanCatalog } from '../../domain/quota/plan-parser.js';
import { DEFAULT_COST_KEY, PLAN_NAME_PATTERN, type PlanRule, type RuleCost } from '../../domain/quota/plan-rules.js';
import { isBuiltInPlan, type Plan } from '../../domain/quota/plan.js';
import { RULE_MODES, type QuotaRule } from '../../domain/quota/quota-rule.js';
import { ANSWER_CLASS_SHAPE, statusesOf } from '../../domain/quota/rule-refunds.js';
import { GRANULES_PER_WINDOW } from '../../domain/quota/sliding-window-counter.js';
import { err, ok, type Result } from '../../domain/result.js';

/** What a plans file is checked against: the API's operationIds, and rule names taken by the service itself. */
export interface PlansFileContext {
  readonly operations: readonly string[];
  readonly reservedRuleNames: readonly string[];
  /** The operationIds by `METHOD /path` (the API's routes under its base path), which a rule's `match` may name instead. */
  readonly routes?: ReadonlyMap<string, string>;
}

const NAME = new RegExp(`^${PLAN_NAME_PATTERN}$`);
const NAME_SHAPE = '1 to 32 lower-case letters, digits, _ or -, starting with a letter';
/** More rules than this per plan would be a mistake, not a plan: each costs every matched request a counter. */
export const MAX_PLAN_RULES = 16;
/** A window's units, as a plans file writes them (`90s`, `1m`), the smallest first. */
export const WINDOW_UNITS_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const MIN_WINDOW_MS = WINDOW_UNITS_MS.s;
const MAX_WINDOW_MS = 366 * WINDOW_UNITS_MS.d;
const WINDOW_SHAPE = `must be a duration such as "60s", "1m", "1h", "1d" or whole milliseconds, from 1s to 366d, a multiple of ${GRANULES_PER_WINDOW} ms`;
const PER_SHAPE = 'must be a duration such as "1s", "1m", "1h", "1d" or whole milliseconds, from 1 ms to 366d';
/** A window rule's own fields, and a burst rule's: a rule has the ones or the others. */
const WINDOW_FIELDS = ['limit', 'window'] as const;
const BURST_FIELDS = ['burst', 'rate', 'per'] as const;
/** Credits' own fields: a balance, its first value and its refill. */
const CREDIT_FIELDS = ['credits', 'initial', 'refill'] as const;
const RULE_FIELDS = ['name', ...WINDOW_FIELDS, ...BURST_FIELDS, 'concurrency', ...CREDIT_FIELDS, 'match', 'cost', 'mode', 'refund'] as const;
const RULE_FIELDS_TEXT =
  'name, limit and window (a window) or burst, rate and per (a burst) or concurrency (a cap) or credits, initial and refill (credits), match, cost, mode, refund';
/** A concurrency cap's fields: it holds a slot per request, so it has no window, no cost and no mode. */
const CAP_FIELDS = ['name', 'concurrency', 'match'] as const;
/** Credits' fields: a balance is spent, never watched, so it has no mode. */
const CREDITS_RULE_FIELDS = ['name', ...CREDIT_FIELDS, 'match', 'cost', 'refund'] as const;
const REFILL_SHAPE = 'must be "month" (the first of each calendar month, UTC) or a duration such as "1h", "1d", "30d" or whole milliseconds, from 1m to 366d';

type FileRule = PlanRule | ConcurrencyRule | CreditRule;
const isCredits = (rule: FileRule): rule is CreditRule => 'credits' in rule;
const isCap = (rule: FileRule): rule is ConcurrencyRule => !('windowMs' in rule) && !isCredits(rule);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isWhole = (value: unknown, max: number): value is number => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= max;
const member = (path: string, key: string): string => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);

/** The line and column (from 1) of `position` in `text`. */
function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/** JSON.parse's refusal with its line and column, which V8 words as a character position (or not at all, at the end). */
function syntaxProblem(text: string, error: SyntaxError): string {
  const position = /at position (\d+)/.exec(error.message);
  const { line, column } = lineAndColumn(text, position === null ? text.length : Number(position[1]));
  const reason = error.message.replace(/ in JSON at position \d+.*$/, '').replace(/ of JSON input$/, '');
  return `line ${line}, column ${column}: not JSON: ${reason}`;
}

/** A duration as a file writes it (`"90s"`, `"1m"`, or whole milliseconds); NaN when it is none. */
function durationMs(value: unknown): number {
  if (typeof value === 'number') return value;
  const match = typeof value === 'string' ? /^([0-9]{1,9})([smhd])$/.exec(value) : null;
  return match === null ? Number.NaN : Number(match[1]) * WINDOW_UNITS_MS[match[2] as keyof typeof WINDOW_UNITS_MS];
}

class PlanChecker {
  readonly problems: string[] = [];

  constructor(private readonly context: PlansFileContext) {}

  private refuse(path: string, problem: string): undefined {
    this.problems.push(`${path}: ${problem}`);
    return undefined;
  }

  private windowOf(path: string, value: unknown): number | undefined {
    const ms = durationMs(value);
    const decidable = Number.isInteger(ms) && ms >= MIN_WINDOW_MS && ms <= MAX_WINDOW_MS && ms % GRANULES_PER_WINDOW === 0;
    return decidable ? ms : this.refuse(path, WINDOW_SHAPE);
  }

  /** A window rule's limit and window. */
  private windowShapeOf(path: string, { limit, window }: Record<string, unknown>): Omit<QuotaRule, 'name'> | undefined {
    const counted = isWhole(limit, MAX_RULE_LIMIT) ? limit : this.refuse(`${path}.limit`, `must be a whole number from 1 to ${MAX_RULE_LIMIT}`);
    const windowMs = window === undefined ? this.refuse(`${path}.window`, `is required: ${WINDOW_SHAPE.replace('must be ', '')}`) : this.windowOf(`${path}.window`, window);
    return counted === undefined || windowMs === undefined ? undefined : { limit: counted, windowMs };
  }

  /**
   * A burst rule's bucket of `burst` units refilling `rate` units every `per`: limit `burst`,
   * refilled completely in windowMs = burst * per / rate (at least 1 ms, burst and per being
   * whole), which must be whole milliseconds, at most 366 days, and keep burst * windowMs an
   * exact integer (the level the stores keep).
   */
  private burstShapeOf(path: string, { burst, rate, per }: Record<string, unknown>): Omit<QuotaRule, 'name'> | undefined {
    const whole = (field: string, value: unknown, what: string): number | undefined =>
      isWhole(value, MAX_RULE_LIMIT) ? value : this.refuse(`${path}.${field}`, `must be a whole number from 1 to ${MAX_RULE_LIMIT}, ${what}`);
    const limit = whole('burst', burst, 'the units the bucket holds');
    const refill = whole('rate', rate, 'the units refilled every `per`');
    const perMs = durationMs(per);
    const every =
      per === undefined
        ? this.refuse(`${path}.per`, `is required: ${PER_SHAPE.replace('must be ', '')}`)
        : Number.isInteger(perMs) && perMs >= 1 && perMs <= MAX_WINDOW_MS
          ? perMs
          : this.refuse(`${path}.per`, PER_SHAPE);
    if (limit === undefined || refill === undefined || every === undefined) return undefined;
    // Exact whatever the numbers: burst * per may pass 2^53.
    const refillMs = BigInt(limit) * BigInt(every);
    const windowMs = Number(refillMs / BigInt(refill));
    const refills = `a bucket of ${limit} refilling ${refill} every ${every} ms refills completely in ${limit} * ${every} / ${refill} ms`;
    if (refillMs % BigInt(refill) !== 0n) return this.refuse(path, `${refills}, which must be whole milliseconds`);
    if (windowMs > MAX_WINDOW_MS) return this.refuse(path, `${refills} = ${windowMs} ms, which must be at most 366d`);
    if (!Number.isSafeInteger(limit * windowMs)) {
      return this.refuse(path, `${refills} = ${windowMs} ms; ${limit} * ${windowMs} must be at most ${Number.MAX_SAFE_INTEGER}: a smaller burst, or a faster rate`);
    }
    return { limit, windowMs, kind: 'burst' };
  }

  private operationOf(path: string, value: unknown): string | undefined {
    if (typeof value === 'string' && this.context.operations.includes(value)) return value;
    return this.refuse(path, `${JSON.stringify(value)} is not an operationId of the API; expected one of ${this.context.operations.join(', ')}`);
  }

  /** An operation a match names by its method and route (`GET /pets`), read as its operationId; else by its operationId. */
  private matchedOperationOf(path: string, value: unknown): string | undefined {
    if (typeof value !== 'string' || !/^[A-Z]+ \//.test(value)) return this.operationOf(path, value);
    const routes = this.context.routes ?? new Map<string, string>();
    return routes.get(value) ?? this.refuse(path, `${JSON.stringify(value)} is not a route of the API; expected one of ${[...routes.keys()].join(', ')}`);
  }

  private matchOf(path: string, value: unknown): readonly string[] | undefined {
    if (!Array.isArray(value) || value.length === 0) {
      return this.refuse(path, 'must be a list of operationIds or routes ("GET /pets"), at least one; leave it out for every operation');
    }
    const ids = value.map((id, index) => this.matchedOperationOf(`${path}[${index}]`, id));
    if (new Set(ids).size !== ids.length) return this.refuse(path, 'names an operation twice');
    return ids.every((id) => id !== undefined) ? Object.freeze(ids) : undefined;
  }

  private costOf(path: string, value: unknown, limit: number | undefined, match: readonly string[] | undefined): RuleCost | undefined {
    // A cost above the rule's own limit could never be admitted.
    const max = limit ?? MAX_RULE_LIMIT;
    const whole = (at: string, cost: unknown): number | undefined => (isWhole(cost, max) ? cost : this.refuse(at, `must be a whole number from 1 to ${max}, the rule's limit`));
    if (!isObject(value)) return whole(path, value);
    const costs: Record<string, number> = {};
    let valid = true;
    for (const [key, cost] of Object.entries(value)) {
      const at = member(path, key);
      if (key !== DEFAULT_COST_KEY) {
        if (this.operationOf(at, key) === undefined) valid = false;
        else if (match !== undefined && !match.includes(key)) valid = this.refuse(at, `${key} is not in the rule's match: the rule never counts it`) ?? false;
      }
      const read = whole(at, cost);
      if (read === undefined || !valid) valid = false;
      else costs[key] = read;
    }
    return valid ? Object.freeze(costs) : undefined;
  }

  private refundOf(path: string, value: unknown): readonly string[] | undefined {
    if (!Array.isArray(value) || value.length === 0) return this.refuse(path, `must be a list of answer classes, at least one: ${ANSWER_CLASS_SHAPE}`);
    const refunded = new Map<number, string>();
    let valid = true;
    for (const [index, answers] of value.entries()) {
      const at = `${path}[${index}]`;
      const statuses = typeof answers === 'string' ? statusesOf(answers) : [];
      if (statuses.length === 0) {
        valid = this.refuse(at, `${JSON.stringify(answers)} is not an answer class; expected ${ANSWER_CLASS_SHAPE}`) ?? false;
        continue;
      }
      const twice = statuses.find((status) => refunded.has(status));
      if (twice !== undefined) valid = this.refuse(at, `${String(answers)} overlaps ${refunded.get(twice)!}, given before`) ?? false;
      for (const status of statuses) refunded.set(status, answers as string);
    }
    return valid ? Object.freeze([...(value as string[])]) : undefined;
  }

  private nameOf(path: string, name: unknown): string | undefined {
    if (typeof name !== 'string' || !NAME.test(name)) return this.refuse(path, `must be ${NAME_SHAPE}`);
    return this.context.reservedRuleNames.includes(name) ? this.refuse(path, `${name} is the name of a rule of the service's own`) : name;
  }

  /** `{"name": "inflight", "concurrency": 10}`: at most 10 requests of a key in flight, of the operations in `match` if given. */
  private capOf(path: string, value: Record<string, unknown>): ConcurrencyRule | undefined {
    for (const field of Object.keys(value)) {
      if ((RULE_FIELDS as readonly string[]).includes(field) && !(CAP_FIELDS as readonly string[]).includes(field)) {
        this.refuse(member(path, field), 'not a field of a concurrency cap, which has name, concurrency and match');
      }
    }
    const { name, concurrency, match } = value;
    const named = this.nameOf(`${path}.name`, name);
    const limit = isWhole(concurrency, MAX_CONCURRENCY) ? concurrency : this.refuse(`${path}.concurrency`, `must be a whole number from 1 to ${MAX_CONCURRENCY}`);
    const matched = match === undefined ? undefined : this.matchOf(`${path}.match`, match);
    if (named === undefined || limit === undefined || (match !== undefined && matched === undefined)) return undefined;
    return Object.freeze({ name: named, limit, ...(matched === undefined ? {} : { match: matched }) });
  }

  private refillOf(path: string, value: unknown): RefillEvery | undefined {
    if (value === 'month') return value;
    const ms = durationMs(value);
    return Number.isInteger(ms) && ms >= WINDOW_UNITS_MS.m && ms <= MAX_WINDOW_MS ? ms : this.refuse(path, REFILL_SHAPE);
  }

  /** `{"name": "monthly", "credits": 10000, "refill": "month"}`: a balance of 10,000 a key's requests spend, refilled each month. */
  private creditsOf(path: string, value: Record<string, unknown>): CreditRule | undefined {
    for (const field of Object.keys(value)) {
      if ((RULE_FIELDS as readonly string[]).includes(field) && !(CREDITS_RULE_FIELDS as readonly string[]).includes(field)) {
        this.refuse(member(path, field), 'not a field of credits, which have name, credits, initial, refill, match, cost and refund');
      }
    }
    const { name, credits, initial, refill, match, cost, refund } = value;
    const named = this.nameOf(`${path}.name`, name);
    const amount = isWhole(credits, MAX_CREDITS) ? credits : this.refuse(`${path}.credits`, `must be a whole number from 1 to ${MAX_CREDITS}, what each refill brings the balance up to`);
    const first =
      initial === undefined || (Number.isInteger(initial) && (initial as number) >= 0 && (initial as number) <= MAX_CREDITS)
        ? (initial as number | undefined)
        : this.refuse(`${path}.initial`, `must be a whole number from 0 to ${MAX_CREDITS}, a key's first balance`);
    const every = refill === undefined ? undefined : this.refillOf(`${path}.refill`, refill);
    const matched = match === undefined ? undefined : this.matchOf(`${path}.match`, match);
    const charged = cost === undefined ? undefined : this.costOf(`${path}.cost`, cost, amount, matched);
    const refunded = refund === undefined ? undefined : this.refundOf(`${path}.refund`, refund);
    const refused = (given: unknown, read: unknown): boolean => given !== undefined && read === undefined;
    if (named === undefined || amount === undefined || refused(initial, first) || refused(refill, every)) return undefined;
    if (refused(match, matched) || refused(cost, charged) || refused(refund, refunded)) return undefined;
    return Object.freeze({
      name: named,
      credits: amount,
      ...(first === undefined ? {} : { initial: first }),
      ...(every === undefined ? {} : { refill: every }),
      ...(matched === undefined ? {} : { match: matched }),
      ...(charged === undefined ? {} : { cost: charged }),
      ...(refunded === undefined ? {} : { refund: refunded }),
    });
  }

  private ruleOf(path: string, value: unknown): FileRule | undefined {
    if (!isObject(value)) return this.refuse(path, 'must be an object: {"name": "minute", "limit": 60, "window": "1m"}');
    for (const field of Object.keys(value)) {
      if (!(RULE_FIELDS as readonly string[]).includes(field)) this.refuse(member(path, field), `unknown field; a rule has ${RULE_FIELDS_TEXT}`);
    }
    if (value['concurrency'] !== undefined) return this.capOf(path, value);
    if (value['credits'] !== undefined) return this.creditsOf(path, value);
    const { name, match, cost, mode, refund } = value;
    const isBurst = BURST_FIELDS.some((field) => value[field] !== undefined);
    if (isBurst) {
      for (const field of WINDOW_FIELDS) {
        if (value[field] !== undefined) this.refuse(`${path}.${field}`, 'not a field of a burst rule, which has burst, rate and per');
      }
    }
    const named = this.nameOf(`${path}.name`, name);
    const shape = isBurst ? this.burstShapeOf(path, value) : this.windowShapeOf(path, value);
    // The limit as written (a burst rule's burst), which no cost may pass.
    const written = isBurst ? value['burst'] : value['limit'];
    const matched = match === undefined ? undefined : this.matchOf(`${path}.match`, match);
    const charged = cost === undefined ? undefined : this.costOf(`${path}.cost`, cost, isWhole(written, MAX_RULE_LIMIT) ? written : undefined, matched);
    const moded =
      mode === undefined ? undefined : (RULE_MODES.find((known) => known === mode) ?? this.refuse(`${path}.mode`, `must be one of ${RULE_MODES.join(', ')}`));
    const refunded = refund === undefined ? undefined : this.refundOf(`${path}.refund`, refund);
    if (named === undefined || shape === undefined) return undefined;
    const refused = (given: unknown, read: unknown): boolean => given !== undefined && read === undefined;
    if (refused(match, matched) || refused(cost, charged) || refused(mode, moded) || refused(refund, refunded)) return undefined;
    return Object.freeze({
      name: named,
      ...shape,
      ...(moded === undefined ? {} : { mode: moded }),
      ...(matched === undefined ? {} : { match: matched }),
      ...(charged === undefined ? {} : { cost: charged }),
      ...(refunded === undefined ? {} : { refund: refunded }),
    });
  }

  planOf(path: string, name: string, value: unknown): Plan | undefined {
    if (isBuiltInPlan(name)) return this.refuse(path, `${name} is a built-in plan; give the file's plan another name`);
    if (!NAME.test(name)) return this.refuse(path, `a plan's name must be ${NAME_SHAPE}`);
    if (!isObject(value)) return this.refuse(path, 'must be an object: {"rules": [...]}');
    for (const field of Object.keys(value)) if (field !== 'rules') this.refuse(member(path, field), 'unknown field; a plan has rules');
    const { rules } = value;
    if (!Array.isArray(rules) || rules.length === 0 || rules.length > MAX_PLAN_RULES) {
      return this.refuse(`${path}.rules`, `must be a list of 1 to ${MAX_PLAN_RULES} rules`);
    }
    const read = rules.map((rule, index) => this.ruleOf(`${path}.rules[${index}]`, rule));
    const names = new Set<string>();
    for (const [index, rule] of read.entries()) {
      if (rule === undefined) continue;
      if (names.has(rule.name)) this.refuse(`${path}.rules[${index}].name`, `${rule.name} names another rule of the plan`);
      names.add(rule.name);
    }
    if (!read.every((rule) => rule !== undefined)) return undefined;
    const caps = read.filter(isCap);
    const balances = read.filter(isCredits);
    const counted = read.filter((rule): rule is PlanRule => !isCap(rule) && !isCredits(rule));
    // One slot per request, in one store key per key: a second cap would need both taken atomically.
    if (caps.length > 1) return this.refuse(`${path}.rules`, 'has more than one concurrency cap; a plan has at most one');
    // One balance per key: two would be two accounts a request must spend from at once.
    if (balances.length > 1) return this.refuse(`${path}.rules`, 'has more than one credits rule; a plan has at most one');
    // Every request is then limited, and its rate-limit fields always have a rule to describe.
    if (!counted.some((rule) => rule.match === undefined && rule.mode !== 'shadow')) {
      return this.refuse(`${path}.rules`, 'needs an enforced rule without "match", one that limits every request');
    }
    if (names.size !== read.length) return undefined;
    const [cap] = caps;
    const [credits] = balances;
    return Object.freeze({
      name,
      rules: Object.freeze(counted),
      ...(cap === undefined ? {} : { concurrency: cap }),
      ...(credits === undefined ? {} : { credits }),
    });
  }
}

/**
 * A plans file's text (docs/plans.md): `{"plans": {"NAME": {"rules": [RULE, ...]}}}`. Every
 * mistake is reported, one line each, naming its JSON path, or its line and column when the
 * text is not JSON.
 */
export function parsePlansFile(text: string, context: PlansFileContext): Result<PlanCatalog, readonly string[]> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return err([syntaxProblem(text, error as SyntaxError)]);
  }
  if (!isObject(json) || !isObject(json['plans'])) return err(['the file must be an object with "plans": {"NAME": {"rules": [...]}}']);
  const checker = new PlanChecker(context);
  for (const field of Object.keys(json)) if (field !== 'plans') checker.problems.push(`${field}: unknown field; the file has plans`);
  const plans = new Map<string, Plan>();
  for (const [name, value] of Object.entries(json['plans'])) {
    const plan = checker.planOf(member('plans', name), name, value);
    if (plan !== undefined) plans.set(name, plan);
  }
  if (plans.size === 0 && checker.problems.length === 0) checker.problems.push('plans: names no plan');
  return checker.problems.length === 0 ? ok(plans) : err(checker.problems);
}

/** PETSTORE_PLANS: the file at `path`, read once at start; each mistake on its own line. */
export function readPlansFile(path: string, context: PlansFileContext): Result<PlanCatalog, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return err(`cannot read the file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const plans = parsePlansFile(text, context);
  return plans.ok ? plans : err(plans.error.join('\n'));
}
