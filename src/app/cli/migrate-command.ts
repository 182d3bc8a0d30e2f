import { parseArgs } from 'node:util';
import { err, ok, type Result } from '../../domain/result.js';
import { DATABASE_SECTIONS, loadDatabaseSettings, withDefaults, type Environ } from '../config/config.js';
import { isArgumentError, USAGE_EXIT_CODE } from './argument-errors.js';
import { CONSOLE_OUTPUT, type CommandOutput } from './command-output.js';
import { flaggedSettings, flagOptions, flagUsage, withFlags } from './setting-flags.js';
import { failureLine } from './store-failure.js';

/** The flags of the database settings, as the server takes them. */
const DATABASE_FLAGS = flaggedSettings(DATABASE_SECTIONS);

export const MIGRATE_USAGE = `Usage: petstore migrate [--dry-run] ${flagUsage(DATABASE_FLAGS, ' '.repeat('Usage: petstore migrate '.length))}
Applies the schema migrations (migrations/*.sql) the PostgreSQL at DATABASE_URL has not had yet,
in one transaction, under a lock that makes concurrent runs and starting servers apply each once.
--dry-run prints what it would apply and changes nothing. The server applies them itself at start
with PETSTORE_STORE=postgres; this command is for doing it beforehand, e.g. in a deploy step.`;

/** `0004_pet_counts`: a migration as its file is named. */
const migrationFileName = ({ version, name }: { readonly version: number; readonly name: string }): string => `${String(version).padStart(4, '0')}_${name}`;

export interface MigrateInvocation {
  readonly dryRun: boolean;
  readonly help: boolean;
  readonly environ: Environ;
}

export function parseMigrateArgs(argv: readonly string[], environ: Environ): Result<MigrateInvocation, string> {
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: { ...flagOptions(DATABASE_FLAGS), 'dry-run': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    });
    return ok({ dryRun: values['dry-run'] === true, help: values.help === true, environ: withFlags(environ, values, DATABASE_FLAGS) });
  } catch (error) {
    if (isArgumentError(error)) return err(error.message);
    throw error;
  }
}

/** Runs `petstore migrate ...`; resolves with the exit code: 0 done, 1 refused or failed, 2 not understood. */
export async function runMigrateCommand(
  argv: readonly string[],
  environ: Environ,
  output: CommandOutput = CONSOLE_OUTPUT,
): Promise<number> {
  const parsed = parseMigrateArgs(argv, environ);
  if (!parsed.ok) {
    output.err(`petstore migrate: ${parsed.error}`);
    output.err(MIGRATE_USAGE);
    return USAGE_EXIT_CODE;
  }
  if (parsed.value.help) {
    output.out(MIGRATE_USAGE);
    return 0;
  }
  const settings = loadDatabaseSettings(parsed.value.environ);
  if (!settings.ok) {
    for (const problem of settings.error) output.err(`petstore migrate: ${problem}`);
    return 1;
  }
  // The store is PostgreSQL whatever PETSTORE_STORE says.
  const config = withDefaults({ ...settings.value, store: 'postgres' });
  // Loaded once a migration is to run: the usage and a refused command line need no store.
  const [{ createLogger }, { composePetStore }] = await Promise.all([import('../logging/logger.js'), import('../pet-store-app.js')]);
  const app = composePetStore(config, { migrateOnOpen: false, logger: createLogger(config.logLevel, process.stderr) });
  try {
    const { from, pending, newer } = await app.migrateSchema({ dryRun: parsed.value.dryRun });
    if (newer.length > 0) {
      output.out(`The schema is at version ${from}, ahead of this petstore by additive migrations (${newer.map(migrationFileName).join(', ')}): nothing to apply, and this petstore runs on it.`);
      return 0;
    }
    if (pending.length === 0) {
      output.out(`The schema is at version ${from}, this petstore's latest: nothing to apply.`);
      return 0;
    }
    const names = pending.map(migrationFileName);
    if (parsed.value.dryRun) {
      output.out(`The schema is at version ${from}. Would apply, in one transaction:`);
      for (const name of names) output.out(`  ${name}`);
    } else {
      for (const name of names) output.out(`Applied ${name}`);
      output.out(`The schema is now at version ${pending[pending.length - 1]?.version ?? from}.`);
    }
    return 0;
  } catch (error) {
    output.err(`petstore migrate: ${failureLine(error)}`);
    return 1;
  } finally {
    // A pool that never opened rejects its deactivation with the error already reported.
    await app.close().catch(() => undefined);
  }
}
