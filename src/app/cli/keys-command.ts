import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { digestApiKey } from '../../adapters/api-key-digest.js';
import { ROLES, type Role } from '../../domain/access/caller.js';
import { MAX_RULE_LIMIT } from '../../domain/quota/decidable-policy.js';
import { parsePlan } from '../../domain/quota/plan-parser.js';
import type { Plan } from '../../domain/quota/plan.js';
import { err, ok, type Result } from '../../domain/result.js';
import { isExpired, type KeyAdmin, type ManagedApiKey } from '../../ports/api-key-registry.js';
import type { Clock } from '../../ports/clock.js';
import { isArgumentError, USAGE_EXIT_CODE } from './argument-errors.js';
import { CONSOLE_OUTPUT, type CommandOutput } from './command-output.js';
import { loadConfig, type Environ, type PetStoreConfig } from '../config/config.js';
import { buildContainer } from '../container/build-container.js';
import { TOKENS } from '../container/tokens.js';
import { createLogger } from '../logging/logger.js';
import { STORE_FLAGS } from './store-flags.js';

export const KEYS_USAGE = `Usage: petstore keys create --plan free|pro|business [--role customer|staff]
                            [--expires-in DURATION] [--label TEXT]
       petstore keys create --plan enterprise --per-minute N --per-day N [...]
       petstore keys list
       petstore keys revoke ID
Each also takes the server's store flags, or their environment variables (see README):
       [--env ENV] [--store postgres|redis] [--database-url URL]
       [--redis-url URL | --redis-cluster-nodes HOST:PORT,...] [--redis-prefix P]
       (a Cluster's password: REDIS_PASSWORD in the environment)
DURATION: a whole number and a unit: 90s, 30m, 12h, 7d, 90d (at most 3650d).
The key is printed once, by create: the store keeps only its SHA-256 digest.`;

const CREATE_FLAGS = ['plan', 'per-minute', 'per-day', 'role', 'expires-in', 'label'] as const;

export interface NewKeyRequest {
  readonly plan: Plan;
  readonly role: Role;
  readonly expiresInMs?: number;
  readonly label: string;
}

export type KeysAction =
  | { readonly kind: 'help' }
  | { readonly kind: 'create'; readonly key: NewKeyRequest }
  | { readonly kind: 'list' }
  | { readonly kind: 'revoke'; readonly id: string };

export interface KeysInvocation {
  readonly action: KeysAction;
  /** The environment with the store flags applied. */
  readonly environ: Environ;
}

const MAX_DURATION_MS = 3_650 * 86_400_000;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30m`, `12h`, `7d`, `90d`, `90s`: a positive whole number and a unit, in milliseconds. */
export function parseDuration(raw: string): Result<number, string> {
  const match = /^([0-9]{1,7})([smhd])$/.exec(raw);
  const ms = match === null ? Number.NaN : Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms >= 1_000 && ms <= MAX_DURATION_MS
    ? ok(ms)
    : err(`--expires-in ${JSON.stringify(raw)}: expected a whole number and a unit s, m, h or d (30m, 12h, 7d), from 1s to 3650d`);
}

const LIMIT_FLAGS = { perMinute: 'per-minute', perDay: 'per-day' } as const;

function planOfFlags(values: Readonly<Record<string, string | undefined>>): Result<Plan, string> {
  const name = values['plan'];
  const plan = parsePlan({ name, perMinute: values['per-minute'], perDay: values['per-day'] });
  if (plan.ok) return plan;
  const problem = plan.error;
  switch (problem.kind) {
    case 'limit_not_whole':
    case 'limit_too_large':
      return err(`--${LIMIT_FLAGS[problem.limit]} must be a whole number from 1 to ${MAX_RULE_LIMIT}`);
    case 'limits_not_allowed':
      return err(`--per-minute and --per-day are for --plan enterprise; ${problem.plan} has its own limits`);
    case 'unknown_plan':
      return err(
        name === undefined ? 'create needs --plan free|pro|business|enterprise' : `--plan ${JSON.stringify(name)}: must be one of free, pro, business, enterprise`,
      );
  }
}

function parseLabel(raw: string | undefined): Result<string, string> {
  const label = raw ?? '';
  // A label is printed in a terminal table: no control characters, no line breaks.
  return [...label].length <= 100 && !/\p{Cc}/u.test(label) ? ok(label) : err('--label must be at most 100 characters, none of them control characters');
}

function parseNewKey(values: Readonly<Record<string, string | undefined>>): Result<NewKeyRequest, string> {
  const plan = planOfFlags(values);
  if (!plan.ok) return plan;
  const roleFlag = values['role'] ?? 'customer';
  const role = ROLES.find((known) => known === roleFlag);
  if (role === undefined) return err(`--role ${JSON.stringify(roleFlag)}: must be customer or staff`);
  const label = parseLabel(values['label']);
  if (!label.ok) return label;
  const expiresIn = values['expires-in'];
  if (expiresIn === undefined) return ok({ plan: plan.value, role, label: label.value });
  const duration = parseDuration(expiresIn);
  if (!duration.ok) return duration;
  return ok({ plan: plan.value, role, label: label.value, expiresInMs: duration.value });
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
        ...Object.fromEntries([...Object.keys(STORE_FLAGS), ...CREATE_FLAGS].map((flag) => [flag, { type: 'string' as const }])),
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
  const withStore = { ...environ };
  for (const [flag, variable] of Object.entries(STORE_FLAGS)) {
    const value = strings[flag];
    if (value !== undefined) withStore[variable] = value;
  }
  const invocation = (action: KeysAction): Result<KeysInvocation, string> => ok({ action, environ: withStore });
  if (values['help'] === true) return invocation({ kind: 'help' });

  const [command, ...operands] = parsed.positionals;
  const createFlagsGiven = CREATE_FLAGS.filter((flag) => strings[flag] !== undefined);
  if (command !== 'create' && command !== undefined && createFlagsGiven.length > 0) {
    return err(`--${createFlagsGiven[0]} is an option of create, not of ${command}`);
  }
  switch (command) {
    case 'create': {
      if (operands.length > 0) return err(`create takes no argument: ${JSON.stringify(operands[0])}`);
      const key = parseNewKey(strings);
      return key.ok ? invocation({ kind: 'create', key: key.value }) : key;
    }
    case 'list':
      return operands.length > 0 ? err(`list takes no argument: ${JSON.stringify(operands[0])}`) : invocation({ kind: 'list' });
    case 'revoke': {
      const [id, ...extra] = operands;
      if (id === undefined || id === '') return err('revoke needs the ID of a key (petstore keys list shows them)');
      return extra.length > 0 ? err('revoke takes one ID') : invocation({ kind: 'revoke', id });
    }
    case undefined:
      return err('a command is required: create, list or revoke');
    default:
      return err(`unknown command ${JSON.stringify(command)}: expected create, list or revoke`);
  }
}

export interface OpenedKeyAdmin {
  readonly admin: KeyAdmin;
  /** The time keys are created and revoked at. */
  readonly clock: Clock;
  close(): Promise<void>;
}

export interface KeysDependencies {
  /** Connects to the configured store; by default the server's, wired by the server's container. */
  openAdmin(config: PetStoreConfig): Promise<OpenedKeyAdmin>;
  /** `bytes` random bytes; by default node:crypto. */
  randomBytes(bytes: number): Buffer;
}

const openConfiguredAdmin = async (config: PetStoreConfig): Promise<OpenedKeyAdmin> => {
  // Not a request's path: a loaded Redis may take its time. Connection errors go to stderr, apart from the command's output.
  const container = buildContainer(config, { redisCommandTimeoutMs: 5_000, logger: createLogger(config.logLevel, process.stderr) });
  try {
    return { admin: await container.getAsync(TOKENS.keyAdmin), clock: container.get(TOKENS.clock), close: () => container.unbindAllAsync() };
  } catch (error) {
    await container.unbindAllAsync();
    throw error;
  }
};

const DEFAULT_DEPENDENCIES: KeysDependencies = { openAdmin: openConfiguredAdmin, randomBytes };

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
  const config = storeConfig(parsed.value.environ);
  if (!config.ok) {
    for (const problem of config.error) output.err(`petstore keys: ${problem}`);
    return 1;
  }
  if (config.value.store === 'memory') {
    output.err(
      'petstore keys: the memory store lives inside each server process, so a key created here would exist nowhere else. ' +
        'Keys at run time need the store the servers share: PETSTORE_STORE=postgres with their DATABASE_URL, ' +
        'or PETSTORE_STORE=redis with their REDIS_URL (or REDIS_CLUSTER_NODES) and PETSTORE_REDIS_PREFIX (or the --store, --database-url, --redis-url flags).',
    );
    return 1;
  }
  let opened: OpenedKeyAdmin;
  try {
    opened = await deps.openAdmin(config.value);
  } catch (error) {
    output.err(`petstore keys: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  try {
    switch (action.kind) {
      case 'create':
        return await create(opened, action.key, deps.randomBytes, output);
      case 'list':
        return await list(opened, config.value.redisPrefix, output);
      case 'revoke':
        return await revoke(opened, action.id, output);
    }
  } catch (error) {
    output.err(`petstore keys: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await opened.close();
  }
}

/**
 * The store settings exactly as the server reads them (same variables, same defaults, same
 * checks), from those variables alone: the keys commands need no PETSTORE_API_KEYS, which the
 * server requires in staging and production, so a placeholder stands in for it.
 */
function storeConfig(environ: Environ): Result<PetStoreConfig, readonly string[]> {
  const relevant: Record<string, string | undefined> = {
    PETSTORE_API_KEYS: 'keys-command-placeholder:free',
    // Not a flag: a password on a command line shows in the process list.
    REDIS_PASSWORD: environ['REDIS_PASSWORD'],
  };
  for (const variable of Object.values(STORE_FLAGS)) relevant[variable] = environ[variable];
  return loadConfig(relevant);
}

const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

const describePlan = ({ name, rules }: Plan): string => {
  const [perMinute, perDay] = rules.map((rule) => rule.limit);
  return `${name} (${perMinute}/min, ${perDay}/day)`;
};

export const stateOf = (key: ManagedApiKey, now: number): 'active' | 'expired' | 'revoked' =>
  key.revokedAt !== undefined ? 'revoked' : isExpired(key, now) ? 'expired' : 'active';

async function create({ admin, clock }: OpenedKeyAdmin, request: NewKeyRequest, random: KeysDependencies['randomBytes'], output: CommandOutput): Promise<number> {
  const key = `ps_${random(32).toString('base64url')}`;
  const id = `key_${random(8).toString('hex')}`;
  const createdAt = clock.now();
  const expiresAt = request.expiresInMs === undefined ? undefined : createdAt + request.expiresInMs;
  await admin.createKey(digestApiKey(key), {
    id,
    label: request.label,
    plan: request.plan,
    role: request.role,
    createdAt,
    ...(expiresAt === undefined ? {} : { expiresAt }),
  });
  output.out(`id:      ${id}`);
  output.out(`key:     ${key}`);
  output.out(`plan:    ${describePlan(request.plan)}, ${request.role}`);
  output.out(`expires: ${expiresAt === undefined ? 'never' : isoSeconds(expiresAt)}`);
  if (request.label !== '') output.out(`label:   ${request.label}`);
  output.out('The key is shown only this once: the store keeps its digest, not the key.');
  return 0;
}

async function list({ admin, clock }: OpenedKeyAdmin, prefix: string, output: CommandOutput): Promise<number> {
  const keys = await admin.listKeys();
  if (keys.length === 0) {
    output.out(`No keys created with petstore keys create under the prefix ${JSON.stringify(prefix)}.`);
    return 0;
  }
  const now = clock.now();
  const rows = [
    ['ID', 'STATE', 'PLAN', 'ROLE', 'CREATED', 'EXPIRES', 'REVOKED', 'LABEL'],
    ...keys.map((key) => [
      key.id,
      stateOf(key, now),
      describePlan(key.plan),
      key.role,
      isoSeconds(key.createdAt),
      key.expiresAt === undefined ? 'never' : isoSeconds(key.expiresAt),
      key.revokedAt === undefined ? '-' : isoSeconds(key.revokedAt),
      key.label,
    ]),
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  for (const row of rows) output.out(row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd());
  return 0;
}

async function revoke({ admin, clock }: OpenedKeyAdmin, id: string, output: CommandOutput): Promise<number> {
  const outcome = await admin.revokeKey(id, clock.now());
  if (outcome === 'not_found') {
    output.err(`petstore keys: no key has the id ${JSON.stringify(id)} (petstore keys list shows them)`);
    return 1;
  }
  output.out(
    outcome === 'revoked'
      ? `Revoked ${id}: every instance refuses it within 5 s.`
      : `${id} was revoked already.`,
  );
  return 0;
}
