import type { Bind, ServiceIdentifier } from 'inversify';
import { CachedApiKeyRegistry } from '../../adapters/wrappers/cached-api-key-registry.js';
import { LayeredApiKeyRegistry } from '../../adapters/wrappers/layered-api-key-registry.js';
import type { ApiKeyRegistry, KeyAdmin } from '../../ports/api-key-registry.js';
import type { Clock } from '../../ports/clock.js';
import type { PetStoreConfig } from '../config/config.js';
import { configuredKeys } from './configured-keys.js';
import { TOKENS } from './tokens.js';
import { CHANGES_REACH_INSTANCES_MS } from '../../adapters/change-propagation.js';

/** A key's grant is re-read from the shared store at most this often, so revocations spread within it. */
const KEY_CACHE_ENTRIES = 100_000;

/**
 * The keys of a store every instance shares: managed there by `petstore keys` (TOKENS.keyAdmin)
 * and looked up by the servers behind a cache, after the configured keys.
 */
export function bindIssuedKeys(bind: Bind, issued: ServiceIdentifier<ApiKeyRegistry & KeyAdmin>): void {
  // Resolved, not toService: a redirection would skip the activations of this token (traced-stores.ts).
  bind(TOKENS.keyAdmin).toResolvedValue((keys: KeyAdmin) => keys, [issued]);
  bind(TOKENS.apiKeyRegistry)
    .toResolvedValue(
      async (keys: ApiKeyRegistry, config: PetStoreConfig, clock: Clock) =>
        new LayeredApiKeyRegistry(await configuredKeys(config), new CachedApiKeyRegistry(keys, clock, CHANGES_REACH_INSTANCES_MS, KEY_CACHE_ENTRIES)),
      [issued, TOKENS.config, TOKENS.clock],
    )
    .inSingletonScope();
}
