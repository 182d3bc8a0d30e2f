import { buildContainer } from '../../src/app/container/build-container.js';
import { TOKENS } from '../../src/app/container/tokens.js';
import { loadConfig } from '../../src/app/config/config.js';
import type { HttpServerDependencies } from '../../src/adapters/http/http-server.js';
import type { Clock } from '../../src/ports/clock.js';
import type { PetRepository } from '../../src/ports/pet-repository.js';

/**
 * The use cases of an HTTP server over memory stores, wired by the server's container;
 * `pets` replaces the catalog's repository (a failing stub).
 */
export function memoryServices(options: { clock?: Clock; pets?: PetRepository } = {}): Omit<HttpServerDependencies, 'admission'> {
  const config = loadConfig({ PETSTORE_STORE: 'memory' });
  if (!config.ok) throw new Error(config.error.join('\n'));
  const container = buildContainer(config.value, options.clock === undefined ? {} : { clock: options.clock });
  if (options.pets !== undefined) container.rebind(TOKENS.petRepository).toConstantValue(options.pets);
  return {
    catalog: container.get(TOKENS.catalog),
    orders: container.get(TOKENS.orders),
    idempotency: container.get(TOKENS.idempotencyStore),
  };
}
