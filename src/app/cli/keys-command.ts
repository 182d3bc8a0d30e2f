import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Plan } from '../../domain/quota/plan.js';
import type { BanPolicy } from '../../domain/quota/quota-rule.js';
import { err, ok, type Result } from '../../domain/result.js';
import type { KeyAdmin, ManagedApiKey } from '../../ports/api-key-registry.js';
import type { Clock } from '../../ports/clock.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import { loadStoreSettings, STORE_SECTIONS, withDefaults, type Environ, type PetStoreConfig } from '../config/config.js';
import { WITHIN_CHANGES_REACH_INSTANCES } from '../../adapters/change-propagation.js';
import { DEFAULT_ROLL_GRACE, KEY_FIELDS, MAX_DURATION, parseGrace, readKeyChanges, readNewKey, type FieldNames, type KeyField, type KeyFieldValues, type KeyOptions, type NewKeyRequest } from '../../domain/keys/key-fields.js';
import { usedToday, type IssuedSecret, type KeyRefusal, type KeyStanding } from '../keys/key-operations.js';
import { assembleKeyOperations } from '../keys/assemble-key-operations.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { composePetStore, type PetStoreAppOptions } from '../pet-store-app.js';
import { failureLine } from './store-failure.js';
import { isArgumentError, USAGE_EXIT_CODE } from './argument-errors.js';
import { CONSOLE_OUTPUT, type CommandOutput } from './command-output.js';
import { flaggedSettings, flagOptions, flagUsage, withFlags } from './setting-flags.js';

/** The flags of the sections the keys commands read, as the server takes them. */
const STORE_FLAGS = flaggedSettings(STORE_SECTIONS);

export const KEYS_USAGE = `Usage: petstore keys create --plan free|pro|business [--role customer|staff]
                            [--expires-in DURATION] [--label TEXT]
       petstore keys create --plan enterprise --per-minute N --per-day N [...]
       petstore keys update ID [--plan PLAN [--per-minute N --per-day N]] [--role customer|staff]
                            [--expires-in DURATION] [--label TEXT]
       petstore keys show ID
       petstore keys unban ID
       petstore keys roll ID [--grace DURATION|0]
       petstore keys list
       petstore keys revoke ID
Each also takes the server's store flags, or their environment variables (see docs/configuration.md):
       ${flagUsage(STORE_FLAGS, '       ')}
       (a Cluster's password: REDIS_PASSWORD in the environment)
DURATION: a whole number and a unit: 90s, 30m, 12h, 7d, 90d (at most ${MAX_DURATION}), from now.
The key is printed once, by create: the store keeps only its SHA-256 digest.
update changes only what it is given; every instance applies it ${WITHIN_CHANGES_REACH_INSTANCES}.
unban starts the key's quota over (counts, strikes and any ban); every instance admits it ${WITHIN_CHANGES_REACH_INSTANCES}.
roll prints a new key for the same id, plan, usage and label; the previous one keeps working
for the grace (default ${DEFAULT_ROLL_GRACE}; 0: stops ${WITHIN_CHANGES_REACH_INSTANCES}), and both count against one quota.`;

export type KeysAction =
  | { readonly kind: 'help' }
  | { readonly kind: 'create'; readonly key: NewKeyRequest }
  | { readonly kind: 'update'; readonly id: string; readonly changes: KeyOptions }
  | { readonly kind: 'show'; readonly id: string }
  | { readonly kind: 'unban'; readonly id: string }
  | { readonly kind: 'roll'; readonly id: string; readonly graceMs: number }
  | { readonly kind: 'list' }
  | { readonly kind: 'revoke'; readonly id: string };

export interface KeysInvocation {
  readonly action: KeysAction;
  /** The environment with the store flags applied. */
  readonly environ: Environ;
}

/** Each key field's flag. */
const FLAG_OF = { plan: 'plan', perMinute: 'per-minute', perDay: 'per-day', role: 'role', label: 'label', expiresIn: 'expires-in', grace: 'grace' } as const satisfies Record<KeyField | 'grace', string>;
const flagName: FieldNames = (field) => `--${FLAG_OF[field]}`;
const KEY_FLAGS: readonly string[] = KEY_FIELDS.map((field) => FLAG_OF[field]);

type Flags = Readonly<Record<string, string | undefined>>;

const fieldsOfFlags = (flags: Flags): KeyFieldValues => Object.fromEntries(KEY_FIELDS.map((field) => [field, flags[FLAG_OF[field]]]));

/** The one ID operand of update, show and revoke. */
function idOperand(command: string, operands: readonly string[]): Result<string, string> {
  const [id, ...extra] = operands;
  if (id === undefined || id === '') return err(`${command} needs the ID of a key (petstore keys list shows them)`);
  return extra.length > 0 ? err(`${command} takes one ID`) : ok(id);
}

/**
 * The command line after `petstore keys`. An error is a command line that cannot be
 * understood: the caller prints it with the usage and exits 2.
 */
export function parseKeysArgs(argv: readonly string[], environ: Environ): Result<KeysInvocation, string> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        ...flagOptions(STORE_FLAGS),
        ...Object.fromEntries([...KEY_FLAGS, FLAG_OF.grace].map((flag) => [flag, { type: 'string' as const }])),
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    if (isArgumentError(error)) return err(error.message);
    throw error;
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const strings = Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  const withStore = withFlags(environ, strings, STORE_FLAGS);
  const invocation = (action: KeysAction): Result<KeysInvocation, string> => ok({ action, environ: withStore });
  if (values['help'] === true) return invocation({ kind: 'help' });

  const [command, ...operands] = parsed.positionals;
  const keyFlagsGiven = KEY_FLAGS.filter((flag) => strings[flag] !== undefined);
  if (command !== 'create' && command !== 'update' && command !== undefined && keyFlagsGiven.length > 0) {
    return err(`--${keyFlagsGiven[0]} is an option of create and update, not of ${command}`);
  }
  if (command !== 'roll' && strings[FLAG_OF.grace] !== undefined) return err(`--${FLAG_OF.grace} is an option of roll`);
  switch (command) {
    case 'create': {
      if (operands.length > 0) return err(`create takes no argument: ${JSON.stringify(operands[0])}`);
      const key = readNewKey(fieldsOfFlags(strings), flagName);
      return key.ok ? invocation({ kind: 'create', key: key.value }) : key;
    }
    case 'update': {
      const id = idOperand(command, operands);
      if (!id.ok) return id;
      const changes = readKeyChanges(fieldsOfFlags(strings), flagName);
      return changes.ok ? invocation({ kind: 'update', id: id.value, changes: changes.value }) : changes;
    }
    case 'roll': {
      const id = idOperand(command, operands);
      if (!id.ok) return id;
      const grace = parseGrace(strings[FLAG_OF.grace], flagName);
      return grace.ok ? invocation({ kind: 'roll', id: id.value, graceMs: grace.value }) : grace;
    }
    case 'show':
    case 'unban':
    case 'revoke': {
      const id = idOperand(command, operands);
      return id.ok ? invocation({ kind: command, id: id.value }) : id;
    }
    case 'list':
      return operands.length > 0 ? err(`list takes no argument: ${JSON.stringify(operands[0])}`) : invocation({ kind: 'list' });
    case undefined:
      return err(`a command is required: ${COMMANDS}`);
    default:
      return err(`unknown command ${JSON.stringify(command)}: expected ${COMMANDS}`);
  }
}

const COMMANDS = 'create, update, show, unban, roll, list or revoke';

export interface OpenedKeyAdmin {
  readonly admin: KeyAdmin;
  /** The time keys are created, updated and revoked at. */
  readonly clock: Clock;
  /** The quota store the servers count in: a key's usage is read there (peeked, never counted). */
  quotas(): Promise<QuotaStore>;
  /** Where each key change is logged (stderr, apart from the command's output); absent: a logger of its own on stderr. */
  readonly logger?: Logger;
  close(): Promise<void>;
}

export interface KeysDependencies {
  /** Connects to the configured store; by default the server's, composed as the server composes it. */
  openAdmin(config: PetStoreConfig): Promise<OpenedKeyAdmin>;
  /** `bytes` random bytes; by default node:crypto. */
  randomBytes(bytes: number): Buffer;
}

/** How long a command waits for Redis or PostgreSQL before it fails: a request's deadline is far shorter. */
const COMMAND_STORE_TIMEOUT_MS = 5_000;

/** The stores the configuration names, composed as the server composes them; `options` as the server takes them (a test's clock). */
export const openConfiguredAdmin = (options: Pick<PetStoreAppOptions, 'clock'> = {}) => async (config: PetStoreConfig): Promise<OpenedKeyAdmin> => {
  // Not a request's path: a loaded store may take its time. Connection errors go to stderr, apart from the command's output.
  const log = createLogger(config.logLevel, process.stderr);
  // An operator's PETSTORE_PG_TIMEOUT_MS longer than a command's own wait is kept.
  const storeTimeoutMs = Math.max(COMMAND_STORE_TIMEOUT_MS, config.pgTimeoutMs ?? 0);
  const app = composePetStore(config, { ...options, storeTimeoutMs, logger: log });
  try {
    return {
      logger: log.logger,
      admin: await app.keyAdmin(),
      clock: app.clock,
      // Resolved only by the commands that show usage: create, update and revoke need no quota store.
      quotas: app.quotas,
      close: async () => {
        await app.close();
        await log.close();
      },
    };
  } catch (error) {
    await app.close();
    throw error;
  }
};

const DEFAULT_DEPENDENCIES: KeysDependencies = { openAdmin: openConfiguredAdmin(), randomBytes };

/** Runs `petstore keys ...`; resolves with the exit code: 0 done, 1 refused or failed, 2 not understood. */
export async function runKeysCommand(
  argv: readonly string[],
  environ: Environ,
  output: CommandOutput = CONSOLE_OUTPUT,
  dependencies: Partial<KeysDependencies> = {},
): Promise<number> {
  const deps = { ...DEFAULT_DEPENDENCIES, ...dependencies };
  const parsed = parseKeysArgs(argv, environ);
  if (!parsed.ok) {
    output.err(`petstore keys: ${parsed.error}`);
    output.err(KEYS_USAGE);
    return USAGE_EXIT_CODE;
  }
  const { action } = parsed.value;
  if (action.kind === 'help') {
    output.out(KEYS_USAGE);
    return 0;
  }
  const settings = loadStoreSettings(parsed.value.environ);
  if (!settings.ok) {
    for (const problem of settings.error) output.err(`petstore keys: ${problem}`);
    return 1;
  }
  if (settings.value.store === 'memory') {
    output.err(
      'petstore keys: the memory store lives inside each server process, so a key created here would exist nowhere else. ' +
        'Keys at run time need the store the servers share: PETSTORE_STORE=postgres with their DATABASE_URL, ' +
        'or PETSTORE_STORE=redis with their REDIS_URL (or REDIS_CLUSTER_NODES) and PETSTORE_REDIS_PREFIX (or the --store, --database-url, --redis-url flags).',
    );
    return 1;
  }
  let opened: OpenedKeyAdmin;
  try {
    // Usage is read from the shared quota store or not at all: an outage must not show a local store's empty counters.
    opened = await deps.openAdmin(withDefaults({ ...settings.value, quotaFallback: 'deny' }));
  } catch (error) {
    output.err(`petstore keys: ${failureLine(error)}`);
    return 1;
  }
  const operations = assembleKeyOperations(
    { ...opened, logger: opened.logger ?? createLogger(settings.value.logLevel, process.stderr).logger },
    { ban: settings.value.ban, by: 'cli', randomBytes: deps.randomBytes },
  );
  try {
    switch (action.kind) {
      case 'create':
        return printIssued(await operations.create(action.key), output);
      case 'update':
        return printUpdated(action.id, await operations.update(action.id, action.changes), output);
      case 'show':
        return printStanding(action.id, await operations.show(action.id), settings.value.ban, output);
      case 'unban':
        return printUnbanned(action.id, await operations.unban(action.id), output);
      case 'roll':
        return printRolled(action.id, await operations.roll(action.id, action.graceMs), output);
      case 'list':
        return printList(await operations.list(), settings.value.redisPrefix, output);
      case 'revoke':
        return printRevoked(action.id, await operations.revoke(action.id), output);
    }
  } catch (error) {
    output.err(`petstore keys: ${failureLine(error)}`);
    return 1;
  } finally {
    await opened.close();
  }
}

const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Whole seconds, rounded up as X-RateLimit-Reset is: the second by which the rule's remaining has risen. */
const isoSecondsUp = (ms: number): string => isoSeconds(Math.ceil(ms / 1_000) * 1_000);

const describePlan = ({ name, rules }: Plan): string => {
  const [perMinute, perDay] = rules.map((rule) => rule.limit);
  return `${name} (${perMinute}/min, ${perDay}/day)`;
};

/** What a key entitles its holder to, as create and update print it. */
const grantLines = ({ plan, role, expiresAt, label }: Pick<ManagedApiKey, 'plan' | 'role' | 'expiresAt' | 'label'>): string[] => [
  `plan:    ${describePlan(plan)}, ${role}`,
  `expires: ${expiresAt === undefined ? 'never' : isoSeconds(expiresAt)}`,
  ...(label === '' ? [] : [`label:   ${label}`]),
];

/** The refusal of a verb that changed nothing, exit 1. */
function refused(id: string, refusal: KeyRefusal, output: CommandOutput): number {
  output.err(
    refusal === 'not_found'
      ? `petstore keys: no key has the id ${JSON.stringify(id)} (petstore keys list shows them)`
      : `petstore keys: ${id} is revoked, and a revoked key stays so: nothing changed (petstore keys create makes a new one)`,
  );
  return 1;
}

function printIssued({ key, secret }: IssuedSecret, output: CommandOutput): number {
  output.out(`id:      ${key.id}`);
  output.out(`key:     ${secret}`);
  for (const line of grantLines(key)) output.out(line);
  output.out('The key is shown only this once: the store keeps its digest, not the key.');
  return 0;
}

function printUpdated(id: string, outcome: Result<ManagedApiKey, KeyRefusal>, output: CommandOutput): number {
  if (!outcome.ok) return refused(id, outcome.error, output);
  output.out(`Updated ${id}: every instance applies it ${WITHIN_CHANGES_REACH_INSTANCES}.`);
  for (const line of grantLines(outcome.value)) output.out(line);
  return 0;
}

/** Columns padded to their widest cell, two spaces apart. */
const printTable = (rows: readonly (readonly string[])[], output: CommandOutput): void => {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  for (const row of rows) output.out(row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd());
};

function printStanding(id: string, outcome: Result<KeyStanding, 'not_found'>, ban: BanPolicy, output: CommandOutput): number {
  if (!outcome.ok) return refused(id, outcome.error, output);
  const { key, state, rules, bannedUntil, strikes } = outcome.value;
  output.out(`id:      ${key.id}`);
  output.out(`label:   ${key.label === '' ? '-' : key.label}`);
  output.out(`plan:    ${describePlan(key.plan)}, ${key.role}`);
  output.out(`state:   ${state}`);
  output.out(`created: ${isoSeconds(key.createdAt)}`);
  output.out(`updated: ${key.updatedAt === undefined ? '-' : isoSeconds(key.updatedAt)}`);
  output.out(`expires: ${key.expiresAt === undefined ? 'never' : isoSeconds(key.expiresAt)}`);
  output.out(`revoked: ${key.revokedAt === undefined ? '-' : isoSeconds(key.revokedAt)}`);
  output.out(`rolled:  ${key.rolledAt === undefined ? '-' : `${isoSeconds(key.rolledAt)}${key.previousSecretUntil === undefined ? '' : `, the previous key works until ${isoSeconds(key.previousSecretUntil)}`}`}`);
  output.out(`banned:  ${bannedUntil === undefined ? 'no' : `yes, every request refused until ${isoSecondsUp(bannedUntil)}`}`);
  output.out(`strikes: ${strikes ?? '-'} of ${ban.strikes} within ${ban.strikeWindowMs / 1_000} s`);
  printTable(
    [
      ['RULE', 'LIMIT', 'USED', 'REMAINING', 'RESET'],
      ...rules.map(({ name, limit, used, remaining, resetAt }) => [name, String(limit), String(used ?? '-'), String(remaining), resetAt === undefined ? '-' : isoSecondsUp(resetAt)]),
    ],
    output,
  );
  return 0;
}

function printRolled(id: string, outcome: Result<IssuedSecret, KeyRefusal>, output: CommandOutput): number {
  if (!outcome.ok) return refused(id, outcome.error, output);
  const { key, secret } = outcome.value;
  const until = key.previousSecretUntil;
  output.out(`id:      ${key.id}`);
  output.out(`key:     ${secret}`);
  output.out(`before:  ${until === undefined ? `the previous key stops working ${WITHIN_CHANGES_REACH_INSTANCES}` : `the previous key works until ${isoSeconds(until)}`}`);
  output.out('The key is shown only this once: the store keeps its digest, not the key.');
  return 0;
}

function printUnbanned(id: string, outcome: Result<ManagedApiKey, 'not_found'>, output: CommandOutput): number {
  if (!outcome.ok) return refused(id, outcome.error, output);
  output.out(`Unbanned ${id}: its quota starts over (counts, strikes and any ban); every instance admits it ${WITHIN_CHANGES_REACH_INSTANCES}.`);
  return 0;
}

function printList(standings: readonly KeyStanding[], prefix: string, output: CommandOutput): number {
  if (standings.length === 0) {
    output.out(`No keys created with petstore keys create under the prefix ${JSON.stringify(prefix)}.`);
    return 0;
  }
  const rows = standings.map((standing) => {
    const { key, state } = standing;
    return [
      key.id,
      state,
      describePlan(key.plan),
      key.role,
      String(usedToday(standing) ?? '-'),
      isoSeconds(key.createdAt),
      key.expiresAt === undefined ? 'never' : isoSeconds(key.expiresAt),
      key.revokedAt === undefined ? '-' : isoSeconds(key.revokedAt),
      key.label,
    ];
  });
  printTable([['ID', 'STATE', 'PLAN', 'ROLE', 'USED TODAY', 'CREATED', 'EXPIRES', 'REVOKED', 'LABEL'], ...rows], output);
  return 0;
}

function printRevoked(id: string, outcome: Result<{ readonly alreadyRevoked: boolean }, 'not_found'>, output: CommandOutput): number {
  if (!outcome.ok) return refused(id, outcome.error, output);
  output.out(outcome.value.alreadyRevoked ? `${id} was revoked already.` : `Revoked ${id}: every instance refuses it ${WITHIN_CHANGES_REACH_INSTANCES}.`);
  return 0;
}
