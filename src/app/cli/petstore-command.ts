import { parseArgs } from 'node:util';
import { isArgumentError, USAGE_EXIT_CODE } from './argument-errors.js';
import type { Environ } from '../config/config.js';
import { flagOptions, withFlags } from './setting-flags.js';
import { SERVER_FLAGS, USAGE } from './server-usage.js';

function environFromArgs(argv: readonly string[]): Environ {
  const { values } = parseArgs({
    args: [...argv],
    options: { ...flagOptions(SERVER_FLAGS), help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help === true) {
    console.log(USAGE);
    process.exit(0);
  }
  return withFlags(process.env, values, SERVER_FLAGS);
}

/**
 * Each command loads what it runs once it is chosen: a keys verb loads its store and no HTTP
 * server, a usage loads neither (operators and scripts start these processes by the hundred).
 */
async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'keys') {
    const { runKeysCommand } = await import('./keys-command.js');
    process.exit(await runKeysCommand(args, process.env));
  }
  if (command === 'migrate') {
    const { runMigrateCommand } = await import('./migrate-command.js');
    process.exit(await runMigrateCommand(args, process.env));
  }
  let environ: Environ;
  try {
    environ = environFromArgs(process.argv.slice(2));
  } catch (error) {
    if (!isArgumentError(error)) throw error;
    console.error(`petstore: ${error.message}\n${USAGE}`);
    process.exit(USAGE_EXIT_CODE);
  }
  const { runServer } = await import('./serve-command.js');
  await runServer(environ);
}

await main();
