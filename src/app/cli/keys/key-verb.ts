import { KEY_FIELDS, type FieldNames, type KeyField, type KeyFieldValues } from '../../../domain/keys/key-fields.js';
import { readLimitFlags, type OverrideSyntax } from '../../../domain/keys/key-overrides.js';
import type { OverrideEdits } from '../../../domain/quota/override-edits.js';
import type { PlanCatalog } from '../../../domain/quota/plan-parser.js';
import type { BanPolicy } from '../../../domain/quota/quota-rule.js';
import { err, ok, type Result } from '../../../domain/result.js';
import type { KeyOperations } from '../../keys/key-operations.js';
import type { CommandOutput } from '../command-output.js';

/** The flags given, by name without `--`: a repeatable one (REPEATABLE_FLAGS) as the list of its values. */
export type Flags = Readonly<Record<string, string | readonly string[] | undefined>>;

/** What a verb runs with: the key verbs over the servers' stores, and what it prints against. */
export interface VerbContext {
  readonly operations: KeyOperations;
  readonly output: CommandOutput;
  /** The time its output reads states against (a key expired or not). */
  readonly now: number;
  /** The servers' ban policy, which `show` states strikes against. */
  readonly ban: BanPolicy;
  /** The Redis prefix the keys are under, which `list` names when there is none. */
  readonly redisPrefix: string;
}

/**
 * One verb of `petstore keys`, in a module of its own: its line of the usage, the flags it
 * takes, how it reads its command line and what it prints.
 */
export interface KeyVerb<Action extends { readonly kind: string }> {
  readonly name: Action['kind'];
  /** Its synopsis after `petstore keys `; continuation lines carry their own indent. */
  readonly synopsis: string;
  /** What the usage says of it after the flags, if anything. */
  readonly notes?: string;
  /** The key flags it takes, beyond the store flags every verb takes. */
  readonly flags: readonly string[];
  /** `plans`: the plans file's (PETSTORE_PLANS), which `--plan` may name beside the built-in ones. */
  parse(operands: readonly string[], flags: Flags, plans: PlanCatalog): Result<Action, string>;
  /** Resolves with the exit code: 0 done, 1 refused. */
  run(action: Action, context: VerbContext): Promise<number>;
}

/** Each key field's flag; `overrides` are set by `--limit RULE=N[:MODE]` and unset by `--unset-limit RULE`. */
export const FLAG_OF = {
  plan: 'plan',
  perMinute: 'per-minute',
  perDay: 'per-day',
  role: 'role',
  label: 'label',
  expiresIn: 'expires-in',
  grace: 'grace',
  overrides: 'limit',
} as const satisfies Record<KeyField | 'grace' | 'overrides', string>;
export const UNSET_LIMIT_FLAG = 'unset-limit';
export const flagName: FieldNames = (field) => `--${FLAG_OF[field]}`;
/** The flags of the fields create and update set. */
export const KEY_FLAGS: readonly string[] = KEY_FIELDS.map((field) => FLAG_OF[field]);
/** Flags given once per value: `--limit search=60 --limit burst=5:shadow`. */
export const REPEATABLE_FLAGS: readonly string[] = [FLAG_OF.overrides, UNSET_LIMIT_FLAG];

/** A key's overrides in the command line's words: what a refusal tells the operator to give. */
export const FLAG_SYNTAX: OverrideSyntax = { limit: (rule) => `--limit ${rule}=N`, unset: (rule) => `--${UNSET_LIMIT_FLAG} ${rule}` };

/** The value of a flag given once (a repeatable flag's values are read by overridesOfFlags). */
export const single = (value: string | readonly string[] | undefined): string | undefined => (typeof value === 'string' ? value : undefined);
const list = (value: string | readonly string[] | undefined): readonly string[] => (value === undefined ? [] : typeof value === 'string' ? [value] : value);

export const fieldsOfFlags = (flags: Flags): KeyFieldValues => Object.fromEntries(KEY_FIELDS.map((field) => [field, single(flags[FLAG_OF[field]])]));

/** The overrides the command line sets and unsets (`--limit`, `--unset-limit`); undefined when it gives neither. */
export const overridesOfFlags = (flags: Flags): Result<OverrideEdits | undefined, string> =>
  readLimitFlags(list(flags[FLAG_OF.overrides]), list(flags[UNSET_LIMIT_FLAG]), (name) => `--${name}`);

/** The one ID operand of a verb on one key. */
export function idOperand(command: string, operands: readonly string[]): Result<string, string> {
  const [id, ...extra] = operands;
  if (id === undefined || id === '') return err(`${command} needs the ID of a key (petstore keys list shows them)`);
  return extra.length > 0 ? err(`${command} takes one ID`) : ok(id);
}

/** A verb that takes nothing but one key's ID. */
export const idOnly =
  <Kind extends string>(kind: Kind) =>
  (operands: readonly string[]): Result<{ readonly kind: Kind; readonly id: string }, string> => {
    const id = idOperand(kind, operands);
    return id.ok ? ok({ kind, id: id.value }) : id;
  };
