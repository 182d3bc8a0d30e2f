import { ROLES, type Role } from '../access/caller.js';
import { MAX_RULE_LIMIT } from '../quota/decidable-policy.js';
import { NO_FILE_PLANS, parsePlan, planNamesOf, type PlanCatalog } from '../quota/plan-parser.js';
import type { Plan } from '../quota/plan.js';
import type { OverrideEdits } from '../quota/override-edits.js';
import { err, ok, type Result } from '../result.js';

/**
 * What an operator may set on a key, as text: the one reader of `petstore keys` flags and of the
 * admin API's JSON fields, so both accept and refuse alike. Each front end names a field in its
 * own syntax (`--per-minute`, `perMinute`) through a `FieldNames`.
 */
export const KEY_FIELDS = ['plan', 'perMinute', 'perDay', 'role', 'label', 'expiresIn'] as const;
export type KeyField = (typeof KEY_FIELDS)[number];
export type KeyFieldValues = Readonly<Partial<Record<KeyField | 'grace', string>>>;
/** A field as a front end names it; `overrides`: what sets a key's overrides (key-overrides.ts reads them). */
export type FieldNames = (field: KeyField | 'grace' | 'overrides') => string;

/** The options of create and update, as given: update changes only these. */
export interface KeyOptions {
  readonly plan?: Plan;
  readonly role?: Role;
  readonly expiresInMs?: number;
  readonly label?: string;
  /** Read, not yet checked against the key's plan: the key verbs do that, knowing the plan it has. */
  readonly overrides?: OverrideEdits;
}

export interface NewKeyRequest extends KeyOptions {
  readonly plan: Plan;
  readonly role: Role;
  readonly label: string;
}

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const MIN_DURATION_MS = UNIT_MS.s;
const MAX_DURATION_MS = 3_650 * UNIT_MS.d;
/** The longest duration as an operator writes it: `3650d`. */
export const MAX_DURATION = `${MAX_DURATION_MS / UNIT_MS.d}d`;
/** The shortest and longest durations, as messages state them: `1s to 3650d`. */
export const DURATION_RANGE = `${MIN_DURATION_MS / UNIT_MS.s}s to ${MAX_DURATION}`;

/** `30m`, `12h`, `7d`, `90d`, `90s`: a positive whole number and a unit, in milliseconds. `name` words the error. */
export function parseDuration(raw: string, name: string): Result<number, string> {
  const match = /^([0-9]{1,7})([smhd])$/.exec(raw);
  const ms = match === null ? Number.NaN : Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms >= MIN_DURATION_MS && ms <= MAX_DURATION_MS
    ? ok(ms)
    : err(`${name} ${JSON.stringify(raw)}: expected a whole number and a unit s, m, h or d (30m, 12h, 7d), from ${DURATION_RANGE}`);
}

/** How long a rolled key's previous secret keeps working, unless the operator says otherwise. */
export const DEFAULT_ROLL_GRACE_MS = 24 * UNIT_MS.h;
/** The default grace as an operator writes it: `24h`. */
export const DEFAULT_ROLL_GRACE = `${DEFAULT_ROLL_GRACE_MS / UNIT_MS.h}h`;

/** A roll's grace: a duration, or `0` for the previous secret to stop at once. */
export function parseGrace(raw: string | undefined, names: FieldNames): Result<number, string> {
  if (raw === undefined) return ok(DEFAULT_ROLL_GRACE_MS);
  if (raw === '0') return ok(0);
  const grace = parseDuration(raw, names('grace'));
  return grace.ok ? grace : err(`${grace.error}, or 0 for at once`);
}

function planOf(values: KeyFieldValues, names: FieldNames, plans: PlanCatalog): Result<Plan, string> {
  const name = values.plan;
  const plan = parsePlan({ name, perMinute: values.perMinute, perDay: values.perDay }, plans);
  if (plan.ok) return plan;
  const problem = plan.error;
  switch (problem.kind) {
    case 'limit_not_whole':
    case 'limit_too_large':
      return err(`${names(problem.limit)} must be a whole number from 1 to ${MAX_RULE_LIMIT}`);
    case 'limits_not_allowed':
      return err(`${names('perMinute')} and ${names('perDay')} are for ${names('plan')} enterprise; ${problem.plan} has its own limits`);
    case 'unknown_plan':
      return err(
        name === undefined
          ? `${names('perMinute')} and ${names('perDay')} go with ${names('plan')} enterprise`
          : `${names('plan')} ${JSON.stringify(name)}: must be one of ${planNamesOf(plans)}`,
      );
  }
}

function roleOf(raw: string, names: FieldNames): Result<Role, string> {
  const role = ROLES.find((known) => known === raw);
  return role === undefined ? err(`${names('role')} ${JSON.stringify(raw)}: must be customer or staff`) : ok(role);
}

/** The longest label, in characters. */
export const MAX_LABEL_LENGTH = 100;

function labelOf(label: string, names: FieldNames): Result<string, string> {
  // A label is printed in a terminal table: no control characters, no line breaks.
  return [...label].length <= MAX_LABEL_LENGTH && !/\p{Cc}/u.test(label)
    ? ok(label)
    : err(`${names('label')} must be at most ${MAX_LABEL_LENGTH} characters, none of them control characters`);
}

type OptionReader<Option extends keyof KeyOptions> = (
  values: KeyFieldValues,
  names: FieldNames,
  plans: PlanCatalog,
) => Result<NonNullable<KeyOptions[Option]>, string>;

/** Each option read from text fields: the fields it is read from (any one given), and its reader. */
const KEY_OPTIONS: { readonly [Option in Exclude<keyof KeyOptions, 'overrides'>]-?: { readonly fields: readonly KeyField[]; readonly read: OptionReader<Option> } } = {
  plan: { fields: ['plan', 'perMinute', 'perDay'], read: planOf },
  role: { fields: ['role'], read: (values, names) => roleOf(values.role ?? '', names) },
  label: { fields: ['label'], read: (values, names) => labelOf(values.label ?? '', names) },
  expiresInMs: { fields: ['expiresIn'], read: (values, names) => parseDuration(values.expiresIn ?? '', names('expiresIn')) },
};

/** The options given, each read by its entry of KEY_OPTIONS; the first unreadable one is the error. `plans`: the plans file's, a key may name them too. */
function readKeyOptions(values: KeyFieldValues, names: FieldNames, plans: PlanCatalog): Result<KeyOptions, string> {
  const options: Record<string, unknown> = {};
  for (const [option, { fields, read }] of Object.entries(KEY_OPTIONS)) {
    if (!fields.some((field) => values[field] !== undefined)) continue;
    const value = read(values, names, plans);
    if (!value.ok) return value;
    options[option] = value.value;
  }
  return ok(options as KeyOptions);
}

/** `overrides`: as the front end read them (key-overrides.ts); undefined when none were given. */
export function readNewKey(
  values: KeyFieldValues,
  names: FieldNames,
  plans: PlanCatalog = NO_FILE_PLANS,
  overrides?: OverrideEdits,
): Result<NewKeyRequest, string> {
  const options = readKeyOptions(values, names, plans);
  if (!options.ok) return options;
  const { plan, role = 'customer', label = '' } = options.value;
  if (plan === undefined) return err(`create needs ${names('plan')} ${planNamesOf(plans).replaceAll(', ', '|')}`);
  return ok({ ...options.value, plan, role, label, ...(overrides === undefined ? {} : { overrides }) });
}

export function readKeyChanges(
  values: KeyFieldValues,
  names: FieldNames,
  plans: PlanCatalog = NO_FILE_PLANS,
  overrides?: OverrideEdits,
): Result<KeyOptions, string> {
  const options = readKeyOptions(values, names, plans);
  if (!options.ok) return options;
  const changes = { ...options.value, ...(overrides === undefined ? {} : { overrides }) };
  return Object.keys(changes).length > 0
    ? ok(changes)
    : err(`update needs something to change: ${names('plan')}, ${names('role')}, ${names('expiresIn')}, ${names('label')} or ${names('overrides')}`);
}
