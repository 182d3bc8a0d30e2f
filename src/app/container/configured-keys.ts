import { digestApiKey } from '../../adapters/api-key-digest.js';
import { MemoryApiKeyRegistry } from '../../adapters/memory/memory-api-key-registry.js';
import type { Clock } from '../../ports/clock.js';
import type { PetStoreConfig } from '../config/config.js';

/** The keys of PETSTORE_API_KEYS (or the demo keys), held in this process as digests. */
export async function configuredKeys(config: PetStoreConfig, clock?: Clock): Promise<MemoryApiKeyRegistry> {
  const registry = new MemoryApiKeyRegistry(clock);
  for (const { key, plan, role } of config.apiKeys) await registry.register(digestApiKey(key), { plan, role });
  return registry;
}
