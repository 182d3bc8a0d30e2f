/**
 * The errors `node:util` parseArgs throws for a command line it refuses (an unknown flag, a
 * flag without its value, a stray argument): the CLI answers them with its usage and exit code 2.
 */
export const isArgumentError = (error: unknown): error is Error =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('ERR_PARSE_ARGS_');

/** Exit code of a command line that cannot be understood (as with most Unix tools). */
export const USAGE_EXIT_CODE = 2;
