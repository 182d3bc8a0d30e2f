import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { MAX_DURATION } from '../../domain/keys/key-fields.js';
import { err, ok, type Result } from '../../domain/result.js';
import type { KeyAdmin } from '../../ports/api-key-registry.js';
import type { Clock } from '../../ports/clock.js';
import type { CreditLedger } from '../../ports/credit-ledger.js';
import type { QuotaStore } from '../../ports/quota-store.js';
import { loadStoreSettings, SETTINGS, STORE_KINDS, STORE_SECTIONS, withDefaults, type Environ, type PetStoreConfig } from '../config/config.js';
import { assembleKeyOperations } from '../keys/assemble-key-operations.js';
import type { Logger } from '../logging/logger.js';
import type { PetStoreAppOptions } from '../pet-store-app.js';
import { failureLine } from './store-failure.js';
import { isArgumentError, USAGE_EXIT_CODE } from './argument-errors.js';
import { CONSOLE_OUTPUT, type CommandOutput } from './command-output.js';
import { flaggedSettings, flagOptions, flagUsage, withFlags } from './setting-flags.js';
import { FLAG_OF, REPEATABLE_FLAGS, type Flags, type KeyVerb, type VerbContext } from './keys/key-verb.js';
import { KEY_VERBS as VERBS } from './keys/verbs.js';

type ActionOf<Verb> = Verb extends KeyVerb<infer Action> ? Action : never;
export type KeysAction = { readonly kind: 'help' } | ActionOf<(typeof VERBS)[number]>;

const verbNamed = (name: string): KeyVerb<KeysAction & { readonly kind: string }> | undefined =>
  VERBS.find((verb) => verb.name === name) as KeyVerb<KeysAction & { readonly kind: string }> | undefined;

/** The flags of the sections the keys commands read, as the server takes them. */
const STORE_FLAGS = flaggedSettings(STORE_SECTIONS);

/** Every verb's own flags, each once. */
const VERB_FLAGS = [...new Set(VERBS.flatMap((verb) => verb.flags))];

const COMMANDS = `${VERBS.slice(0, -1).map((verb) => verb.name).join(', ')} or ${VERBS[VERBS.length - 1]?.name}`;

export const KEYS_USAGE = `${VERBS.map((verb, index) => `${index === 0 ? 'Usage:' : '      '} petstore keys ${verb.synopsis}`).join('\n')}
Each also takes the server's store flags, or their environment variables (see docs/configuration.md):
       ${flagUsage(STORE_FLAGS, '       ')}
       (a Cluster's password: REDIS_PASSWORD in the environment)
DURATION: a whole number and a unit: 90s, 30m, 12h, 7d, 90d (at most ${MAX_DURATION}), from now.
${VERBS.flatMap((verb) => (verb.notes === undefined ? [] : [verb.notes])).join('\n')}`;

export interface KeysInvocation {
  readonly action: KeysAction;
  /** The environment with the store flags applied. */
  readonly environ: Environ;
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
        ...Object.fromEntries(VERB_FLAGS.map((flag) => [flag, { type: 'string' as const, multiple: REPEATABLE_FLAGS.includes(flag) }])),
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    if (isArgumentError(error)) return err(error.message);
    throw error;
  }
  const values = parsed.values as Record<string, string | string[] | boolean | undefined>;
  const strings = Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  const flags: Flags = { ...strings, ...Object.fromEntries(REPEATABLE_FLAGS.flatMap((flag) => (Array.isArray(values[flag]) ? [[flag, values[flag]]] : []))) };
  const withStore = withFlags(environ, strings, STORE_FLAGS);
  if (values['help'] === true) return ok({ action: { kind: 'help' }, environ: withStore });

  const [command, ...operands] = parsed.positionals;
  if (command === undefined) return err(`a command is required: ${COMMANDS}`);
  const verb = verbNamed(command);
  if (verb === undefined) return err(`unknown command ${JSON.stringify(command)}: expected ${COMMANDS}`);
  const foreign = VERB_FLAGS.find((flag) => flags[flag] !== undefined && !verb.flags.includes(flag));
  if (foreign !== undefined) {
    const owners = VERBS.filter((candidate) => candidate.flags.includes(foreign)).map((candidate) => candidate.name);
    return err(`--${foreign} is an option of ${owners.join(' and ')}, not of ${command}`);
  }
  // The plans file is read as the servers read it, when --plan may name one of its plans: no other flag names a plan.
  const { plans: plansSetting } = SETTINGS;
  const plansFile = strings[FLAG_OF.plan] === undefined ? undefined : withStore[plansSetting.variable];
  const plans = plansFile === undefined || plansFile === '' ? ok(plansSetting.defaultFor(false)) : plansSetting.parse(plansFile);
  if (!plans.ok) return err(plans.error.split('\n').map((problem) => `${plansSetting.variable}=${JSON.stringify(plansFile)}: ${problem}`).join('\n'));
  const action = verb.parse(operands, flags, plans.value);
  return action.ok ? ok({ action: action.value, environ: withStore }) : action;
}

export interface OpenedKeyAdmin {
  readonly admin: KeyAdmin;
  /** The time keys are created, updated and revoked at. */
  readonly clock: Clock;
  /** The quota store the servers count in: a key's usage is read there (peeked, never counted). */
  quotas(): Promise<QuotaStore>;
  /** The credit ledger the servers spend from: resolved only by the verbs on credits. */
  credits(): Promise<CreditLedger>;
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
  // Loaded here, not with the command: its usage and its refusals need neither the logger nor the container.
  const [{ createLogger }, { composePetStore }] = await Promise.all([import('../logging/logger.js'), import('../pet-store-app.js')]);
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
      credits: app.credits,
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
  if (!STORE_KINDS[settings.value.store].keysKept) {
    output.err(
      `petstore keys: the ${settings.value.store} store lives inside each server process, so a key created here would exist nowhere else. ` +
        'Keys at run time need the store the servers share: PETSTORE_STORE=postgres with their DATABASE_URL, ' +
        'or PETSTORE_STORE=redis with their REDIS_URL (or REDIS_CLUSTER_NODES) and PETSTORE_REDIS_PREFIX, ' +
        'or PETSTORE_STORE=pglite with its PETSTORE_DATA_DIR while no server has it open (or the --store, --database-url, --redis-url, --data-dir flags).',
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
    { ...opened, logger: opened.logger ?? (await import('../logging/logger.js')).createLogger(settings.value.logLevel, process.stderr).logger },
    { ban: settings.value.ban, by: 'cli', randomBytes: deps.randomBytes },
  );
  const context: VerbContext = { operations, output, now: opened.clock.now(), ban: settings.value.ban, redisPrefix: settings.value.redisPrefix };
  try {
    return await (verbNamed(action.kind)?.run(action, context) ?? Promise.resolve(USAGE_EXIT_CODE));
  } catch (error) {
    output.err(`petstore keys: ${failureLine(error)}`);
    return 1;
  } finally {
    await opened.close();
  }
}
