import { loadConfig } from '../../src/app/config/config.js';
import { composePetStore } from '../../src/app/pet-store-app.js';
import type { HttpServerDependencies } from '../../src/adapters/http/http-server.js';
import { PetCatalog } from '../../src/domain/pets/pet-catalog.js';
import type { Clock } from '../../src/ports/clock.js';
import type { PetRepository } from '../../src/ports/pet-repository.js';

/**
 * The use cases of an HTTP server over memory stores, composed as the server composes them;
 * `pets` replaces the catalog's repository (a failing stub).
 */
export async function memoryServices(options: { clock?: Clock; pets?: PetRepository } = {}): Promise<Omit<HttpServerDependencies, 'admission'>> {
  const config = loadConfig({ PETSTORE_STORE: 'memory', PETSTORE_LOG_LEVEL: 'silent' });
  if (!config.ok) throw new Error(config.error.join('\n'));
  const app = composePetStore(config.value, options.clock === undefined ? {} : { clock: options.clock });
  const { catalog, orders, idempotency } = await app.handlerDependencies();
  return { catalog: options.pets === undefined ? catalog : new PetCatalog(options.pets), orders, idempotency };
}
