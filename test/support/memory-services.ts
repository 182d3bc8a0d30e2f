import type { HttpServerDependencies } from '../../src/adapters/http/http-server.js';
import { createMemoryStores } from '../../src/adapters/memory/memory-stores.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { OrderService } from '../../src/domain/orders/order-service.js';
import { PetCatalog } from '../../src/domain/pets/pet-catalog.js';
import type { Clock } from '../../src/ports/clock.js';
import type { PetRepository } from '../../src/ports/pet-repository.js';

/** The use cases of an HTTP server over memory stores; `pets` replaces the catalog's repository (a failing stub). */
export function memoryServices(options: { clock?: Clock; pets?: PetRepository } = {}): Omit<HttpServerDependencies, 'admission'> {
  const clock = options.clock ?? new SystemClock();
  const stores = createMemoryStores(clock);
  return {
    catalog: new PetCatalog(options.pets ?? stores.pets),
    orders: new OrderService(stores.orders, clock),
    idempotency: stores.idempotency,
  };
}
