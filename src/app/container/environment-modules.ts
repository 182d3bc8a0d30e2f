import { ContainerModule } from 'inversify';
import type { Environment } from '../config.js';
import { TOKENS } from './tokens.js';

// Operators' log pipelines read one JSON object per line; a developer reads the stack.
const jsonLines = (message: string, error: unknown): void => {
  const detail = error instanceof Error ? { error: error.name, reason: error.message, stack: error.stack } : { reason: String(error) };
  process.stderr.write(`${JSON.stringify({ level: 'error', time: new Date().toISOString(), message, ...detail })}\n`);
};
const readable = (message: string, error: unknown): void => {
  console.error(message, error);
};

const logging = (logError: (message: string, error: unknown) => void): ContainerModule =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.logError).toConstantValue(logError);
  });

/** What differs between environments besides the stores: how failures are reported. */
export const ENVIRONMENT_MODULES: Record<Environment, ContainerModule> = {
  development: logging(readable),
  test: logging(readable),
  staging: logging(jsonLines),
  production: logging(jsonLines),
};
