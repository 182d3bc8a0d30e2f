import { KEY_FIELDS, type FieldNames, type KeyField, type KeyFieldValues } from '../../../domain/keys/key-fields.js';
import type { PlanCatalog } from '../../../domain/quota/plan-parser.js';
import type { BanPolicy } from '../../../domain/quota/quota-rule.js';
import { err, ok, type Result } from '../../../domain/result.js';
import type { KeyOperations } from '../../keys/key-operations.js';
import type { CommandOutput } from '../command-output.js';

/** The flags given, by name without `--`. */
export type Flags = Readonly<Record<string, string | undefined>>;

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

/** Each key field's flag. */
export const FLAG_OF = { plan: 'plan', perMinute: 'per-minute', perDay: 'per-day', role: 'role', label: 'label', expiresIn: 'expires-in', grace: 'grace' } as const satisfies Record<
  KeyField | 'grace',
  string
>;
export const flagName: FieldNames = (field) => `--${FLAG_OF[field]}`;
/** The flags of the fields create and update set. */
export const KEY_FLAGS: readonly string[] = KEY_FIELDS.map((field) => FLAG_OF[field]);

export const fieldsOfFlags = (flags: Flags): KeyFieldValues => Object.fromEntries(KEY_FIELDS.map((field) => [field, flags[FLAG_OF[field]]]));

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
