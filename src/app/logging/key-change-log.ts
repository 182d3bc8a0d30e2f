import type { KeyChange } from '../keys/key-operations.js';
import type { Logger } from './logger.js';

/** Which front end made a change: `petstore keys` or the admin listener's key API. */
export type KeyChangeSource = 'cli' | 'admin_api';

/**
 * One info line per key change: `{"keyId":"key_…","change":"rolled","by":"cli",…,"msg":"key rolled"}`,
 * with what the change set. The secret is never in it: a KeyChange holds none.
 */
export const keyChangeLog =
  (logger: Logger, by: KeyChangeSource) =>
  ({ keyId, change, details }: KeyChange): void =>
    logger.info({ ...details, keyId, change, by }, `key ${change}`);
