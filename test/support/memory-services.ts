import type { HttpServerDependencies } from '../../src/adapters/http/http-server.js';
import { MemoryIdempotencyRecords } from '../../src/adapters/memory/memory-idempotency-records.js';
import { MemoryIdempotencyStore } from '../../src/adapters/memory/memory-idempotency-store.js';
import { MemoryOrderRepository } from '../../src/adapters/memory/memory-order-repository.js';
import { MemoryPetRepository } from '../../src/adapters/memory/memory-pet-repository.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { OrderService } from '../../src/domain/orders/order-service.js';
import { PetCatalog } from '../../src/domain/pets/pet-catalog.js';
import type { Clock } from '../../src/ports/clock.js';
import type { PetRepository } from '../../src/ports/pet-repository.js';

/** The use cases of an HTTP server over memory stores; `pets` replaces the catalog's repository (a failing stub). */
export function memoryServices(options: { clock?: Clock; pets?: PetRepository } = {}): Omit<HttpServerDependencies, 'admission'> {
  const clock = options.clock ?? new SystemClock();
  const records = new MemoryIdempotencyRecords(clock);
  const pets = new MemoryPetRepository(records);
  return {
    catalog: new PetCatalog(options.pets ?? pets),
    orders: new OrderService(new MemoryOrderRepository(pets, records), clock),
    idempotency: new MemoryIdempotencyStore(records),
  };
}
