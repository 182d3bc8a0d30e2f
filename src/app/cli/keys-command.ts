import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { digestApiKey } from '../../adapters/api-key-digest.js';
import { ROLES, type Role } from '../../domain/access/caller.js';
import { MAX_RULE_LIMIT } from '../../domain/quota/decidable-policy.js';
import { parsePlan } from '../../domain/quota/plan-parser.js';
import { DAY_MS, type Plan } from '../../domain/quota/plan.js';
import type { QuotaDecision } from '../../domain/quota/quota-decision.js';
import type { BanPolicy } from '../../domain/quota/quota-rule.js';
import { err, ok, type Result } from '../../domain/result.js';
import { isExpired, type KeyAdmin, type KeyChanges, type ManagedApiKey } from '../../ports/api-key-registry.js';
import type { Clock } from '../../ports/clock.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import { isArgumentError, USAGE_EXIT_CODE } from './argument-errors.js';
import { CONSOLE_OUTPUT, type CommandOutput } from './command-output.js';
import { loadConfig, type Environ, type PetStoreConfig } from '../config/config.js';
import { buildContainer } from '../container/build-container.js';
import { TOKENS } from '../container/tokens.js';
import { createLogger } from '../logging/logger.js';
import { peekKeyUsage } from './key-usage.js';
import { keySubject } from '../../domain/quota/request-admission.js';
import { STORE_FLAGS } from './store-flags.js';

export const KEYS_USAGE = `Usage: petstore keys create --plan free|pro|business [--role customer|staff]
                            [--expires-in DURATION] [--label TEXT]
       petstore keys create --plan enterprise --per-minute N --per-day N [...]
       petstore keys update ID [--plan PLAN [--per-minute N --per-day N]] [--role customer|staff]
                            [--expires-in DURATION] [--label TEXT]
       petstore keys show ID
       petstore keys unban ID
       petstore keys list
       petstore keys revoke ID
Each also takes the server's store flags, or their environment variables (see README):
       [--env ENV] [--store postgres|redis] [--database-url URL]
       [--redis-url URL | --redis-cluster-nodes HOST:PORT,...] [--redis-prefix P]
       (a Cluster's password: REDIS_PASSWORD in the environment)
DURATION: a whole number and a unit: 90s, 30m, 12h, 7d, 90d (at most 3650d), from now.
The key is printed once, by create: the store keeps only its SHA-256 digest.
update changes only what it is given; every instance applies it within 5 s.
unban starts the key's quota over (counts, strikes and any ban); every instance admits it within 5 s.`;

/** The options of create and update, as given: update changes only these. */
export interface KeyOptions {
  readonly plan?: Plan;
  readonly role?: Role;
  readonly expiresInMs?: number;
  readonly label?: string;
}

export interface NewKeyRequest extends KeyOptions {
  readonly plan: Plan;
  readonly role: Role;
  readonly label: string;
}

export type KeysAction =
  | { readonly kind: 'help' }
  | { readonly kind: 'create'; readonly key: NewKeyRequest }
  | { readonly kind: 'update'; readonly id: string; readonly changes: KeyOptions }
  | { readonly kind: 'show'; readonly id: string }
  | { readonly kind: 'unban'; readonly id: string }
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

type Flags = Readonly<Record<string, string | undefined>>;

function planOfFlags(values: Flags): Result<Plan, string> {
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
        name === undefined ? '--per-minute and --per-day go with --plan enterprise' : `--plan ${JSON.stringify(name)}: must be one of free, pro, business, enterprise`,
      );
  }
}

function parseRole(raw: string): Result<Role, string> {
  const role = ROLES.find((known) => known === raw);
  return role === undefined ? err(`--role ${JSON.stringify(raw)}: must be customer or staff`) : ok(role);
}

function parseLabel(label: string): Result<string, string> {
  // A label is printed in a terminal table: no control characters, no line breaks.
  return [...label].length <= 100 && !/\p{Cc}/u.test(label) ? ok(label) : err('--label must be at most 100 characters, none of them control characters');
}

/** Each option of create and update: the flags it is read from (any one given), and its reader. */
const KEY_OPTION_FLAGS: { readonly [Option in keyof KeyOptions]-?: { readonly flags: readonly string[]; read(values: Flags): Result<NonNullable<KeyOptions[Option]>, string> } } = {
  plan: { flags: ['plan', 'per-minute', 'per-day'], read: planOfFlags },
  role: { flags: ['role'], read: (values) => parseRole(values['role'] ?? '') },
  label: { flags: ['label'], read: (values) => parseLabel(values['label'] ?? '') },
  expiresInMs: { flags: ['expires-in'], read: (values) => parseDuration(values['expires-in'] ?? '') },
};

const KEY_FLAGS = Object.values(KEY_OPTION_FLAGS).flatMap(({ flags }) => flags);

/** The options given, each read by its entry of KEY_OPTION_FLAGS; the first unreadable one is the error. */
function parseKeyOptions(values: Flags): Result<KeyOptions, string> {
  const options: Record<string, unknown> = {};
  for (const [option, { flags, read }] of Object.entries(KEY_OPTION_FLAGS)) {
    if (!flags.some((flag) => values[flag] !== undefined)) continue;
    const value = read(values);
    if (!value.ok) return value;
    options[option] = value.value;
  }
  return ok(options as KeyOptions);
}

function parseNewKey(values: Flags): Result<NewKeyRequest, string> {
  const options = parseKeyOptions(values);
  if (!options.ok) return options;
  const { plan, role = 'customer', label = '' } = options.value;
  if (plan === undefined) return err('create needs --plan free|pro|business|enterprise');
  return ok({ ...options.value, plan, role, label });
}

function parseChanges(values: Flags): Result<KeyOptions, string> {
  const options = parseKeyOptions(values);
  if (!options.ok) return options;
  return Object.keys(options.value).length > 0 ? options : err('update needs something to change: --plan, --role, --expires-in or --label');
}

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
        ...Object.fromEntries([...Object.keys(STORE_FLAGS), ...KEY_FLAGS].map((flag) => [flag, { type: 'string' as const }])),
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
  const keyFlagsGiven = KEY_FLAGS.filter((flag) => strings[flag] !== undefined);
  if (command !== 'create' && command !== 'update' && command !== undefined && keyFlagsGiven.length > 0) {
    return err(`--${keyFlagsGiven[0]} is an option of create and update, not of ${command}`);
  }
  switch (command) {
    case 'create': {
      if (operands.length > 0) return err(`create takes no argument: ${JSON.stringify(operands[0])}`);
      const key = parseNewKey(strings);
      return key.ok ? invocation({ kind: 'create', key: key.value }) : key;
    }
    case 'update': {
      const id = idOperand(command, operands);
      if (!id.ok) return id;
      const changes = parseChanges(strings);
      return changes.ok ? invocation({ kind: 'update', id: id.value, changes: changes.value }) : changes;
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

const COMMANDS = 'create, update, show, list or revoke';

export interface OpenedKeyAdmin {
  readonly admin: KeyAdmin;
  /** The time keys are created, updated and revoked at. */
  readonly clock: Clock;
  /** The quota store the servers count in: a key's usage is read there (peeked, never counted). */
  quotas(): Promise<QuotaStore>;
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
    return {
      admin: await container.getAsync(TOKENS.keyAdmin),
      clock: container.get(TOKENS.clock),
      // Resolved only by the commands that show usage: create, update and revoke need no quota store.
      quotas: () => container.getAsync(TOKENS.quotaStore),
      close: () => container.unbindAllAsync(),
    };
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
      case 'update':
        return await update(opened, action.id, action.changes, output);
      case 'show':
        return await show(opened, action.id, config.value.ban, output);
      case 'unban':
        return await unban(opened, action.id, output);
      case 'list':
        return await list(opened, config.value.redisPrefix, config.value.ban, output);
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
    // Usage is read from the shared quota store or not at all: an outage must not show a local store's empty counters.
    PETSTORE_QUOTA_FALLBACK: 'deny',
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
  for (const line of grantLines({ plan: request.plan, role: request.role, label: request.label, ...(expiresAt === undefined ? {} : { expiresAt }) })) output.out(line);
  output.out('The key is shown only this once: the store keeps its digest, not the key.');
  return 0;
}

/** What a key entitles its holder to, as create and update print it. */
const grantLines = ({ plan, role, expiresAt, label }: Pick<ManagedApiKey, 'plan' | 'role' | 'expiresAt' | 'label'>): string[] => [
  `plan:    ${describePlan(plan)}, ${role}`,
  `expires: ${expiresAt === undefined ? 'never' : isoSeconds(expiresAt)}`,
  ...(label === '' ? [] : [`label:   ${label}`]),
];

const notFound = (id: string, output: CommandOutput): number => {
  output.err(`petstore keys: no key has the id ${JSON.stringify(id)} (petstore keys list shows them)`);
  return 1;
};

async function update({ admin, clock }: OpenedKeyAdmin, id: string, { expiresInMs, ...changes }: KeyOptions, output: CommandOutput): Promise<number> {
  const at = clock.now();
  const keyChanges: KeyChanges = { ...changes, ...(expiresInMs === undefined ? {} : { expiresAt: at + expiresInMs }) };
  const outcome = await admin.updateKey(id, keyChanges, at);
  if (outcome === 'not_found') return notFound(id, output);
  if (outcome === 'revoked') {
    output.err(`petstore keys: ${id} is revoked, and a revoked key stays so: nothing changed (petstore keys create makes a new one)`);
    return 1;
  }
  output.out(`Updated ${id}: every instance applies it within 5 s.`);
  for (const line of grantLines(outcome.updated)) output.out(line);
  return 0;
}

/**
 * Requests counted in a rule's window: its limit less what remains. During a ban nothing
 * remains whatever was counted, so it is not known (undefined); a rule counted past a lower
 * limit a plan change brought shows that limit.
 */
const usedOf = (decision: QuotaDecision, rule: number, limit: number): number | undefined =>
  decision.verdict === 'banned' ? undefined : limit - (decision.remaining[rule] ?? 0);

/** Whole seconds, rounded up as X-RateLimit-Reset is: the second by which the rule's remaining has risen. */
const isoSecondsUp = (ms: number): string => isoSeconds(Math.ceil(ms / 1_000) * 1_000);

/** Columns padded to their widest cell, two spaces apart. */
const printTable = (rows: readonly (readonly string[])[], output: CommandOutput): void => {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  for (const row of rows) output.out(row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd());
};

async function show(opened: OpenedKeyAdmin, id: string, ban: BanPolicy, output: CommandOutput): Promise<number> {
  const stored = await opened.admin.findKey(id);
  if (stored === undefined) return notFound(id, output);
  const usage = await peekKeyUsage(await opened.quotas(), stored, ban);
  const { key } = stored;
  output.out(`id:      ${key.id}`);
  output.out(`label:   ${key.label === '' ? '-' : key.label}`);
  output.out(`plan:    ${describePlan(key.plan)}, ${key.role}`);
  output.out(`state:   ${stateOf(key, opened.clock.now())}`);
  output.out(`created: ${isoSeconds(key.createdAt)}`);
  output.out(`updated: ${key.updatedAt === undefined ? '-' : isoSeconds(key.updatedAt)}`);
  output.out(`expires: ${key.expiresAt === undefined ? 'never' : isoSeconds(key.expiresAt)}`);
  output.out(`revoked: ${key.revokedAt === undefined ? '-' : isoSeconds(key.revokedAt)}`);
  output.out(`banned:  ${usage.verdict === 'banned' ? `yes, every request refused until ${isoSecondsUp(usage.retryAt)}` : 'no'}`);
  printTable(
    [
      ['RULE', 'LIMIT', 'USED', 'REMAINING', 'RESET'],
      ...key.plan.rules.map((rule, index) => {
        const resetAt = usage.resetAt[index] ?? usage.decidedAt;
        return [
          rule.name,
          String(rule.limit),
          String(usedOf(usage, index, rule.limit) ?? '-'),
          String(usage.remaining[index] ?? 0),
          resetAt > usage.decidedAt ? isoSecondsUp(resetAt) : '-',
        ];
      }),
    ],
    output,
  );
  return 0;
}

async function unban({ admin, quotas }: OpenedKeyAdmin, id: string, output: CommandOutput): Promise<number> {
  const stored = await admin.findKey(id);
  if (stored === undefined) return notFound(id, output);
  await (await quotas()).reset(keySubject(stored.digest));
  output.out(`Unbanned ${id}: its quota starts over (counts, strikes and any ban); every instance admits it within 5 s.`);
  return 0;
}

async function list({ admin, clock, quotas }: OpenedKeyAdmin, prefix: string, ban: BanPolicy, output: CommandOutput): Promise<number> {
  const keys = await admin.listKeys();
  if (keys.length === 0) {
    output.out(`No keys created with petstore keys create under the prefix ${JSON.stringify(prefix)}.`);
    return 0;
  }
  const store = await quotas();
  const now = clock.now();
  const rows = await Promise.all(
    keys.map(async (stored) => {
      const { key } = stored;
      const usage = await peekKeyUsage(store, stored, ban);
      const day = key.plan.rules.findIndex((rule) => rule.windowMs === DAY_MS);
      const usedToday = usedOf(usage, day, key.plan.rules[day]?.limit ?? 0);
      return [
        key.id,
        stateOf(key, now),
        describePlan(key.plan),
        key.role,
        usedToday === undefined ? '-' : String(usedToday),
        isoSeconds(key.createdAt),
        key.expiresAt === undefined ? 'never' : isoSeconds(key.expiresAt),
        key.revokedAt === undefined ? '-' : isoSeconds(key.revokedAt),
        key.label,
      ];
    }),
  );
  printTable([['ID', 'STATE', 'PLAN', 'ROLE', 'USED TODAY', 'CREATED', 'EXPIRES', 'REVOKED', 'LABEL'], ...rows], output);
  return 0;
}

async function revoke({ admin, clock }: OpenedKeyAdmin, id: string, output: CommandOutput): Promise<number> {
  const outcome = await admin.revokeKey(id, clock.now());
  if (outcome === 'not_found') return notFound(id, output);
  output.out(
    outcome === 'revoked'
      ? `Revoked ${id}: every instance refuses it within 5 s.`
      : `${id} was revoked already.`,
  );
  return 0;
}
