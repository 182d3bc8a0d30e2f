import { randomBytes } from 'node:crypto';
import type { Container } from 'inversify';
import type { PetStoreConfig } from '../config/config.js';
import { TOKENS } from '../container/tokens.js';
import { keyChangeLog } from '../logging/key-change-log.js';
import { KeyOperations } from './key-operations.js';

/** The key verbs of the admin API over the stores a container wired; each change logged as the admin API's. */
export async function keyOperationsOf(container: Container, config: PetStoreConfig): Promise<KeyOperations> {
  return new KeyOperations({
    admin: await container.getAsync(TOKENS.keyAdmin),
    clock: container.get(TOKENS.clock),
    quotas: () => container.getAsync(TOKENS.quotaStore),
    ban: config.ban,
    randomBytes,
    changed: keyChangeLog(container.get(TOKENS.logger).logger, 'admin_api'),
  });
}
