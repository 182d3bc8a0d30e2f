import { randomBytes } from 'node:crypto';
import type { Container } from 'inversify';
import type { PetStoreConfig } from '../config/config.js';
import { TOKENS } from '../container/tokens.js';
import { KeyOperations } from './key-operations.js';

/** The key verbs over the stores a container wired: the servers' own, or a command's. */
export async function keyOperationsOf(container: Container, config: PetStoreConfig): Promise<KeyOperations> {
  return new KeyOperations({
    admin: await container.getAsync(TOKENS.keyAdmin),
    clock: container.get(TOKENS.clock),
    quotas: () => container.getAsync(TOKENS.quotaStore),
    ban: config.ban,
    randomBytes,
  });
}
