import { describe, expect, it } from 'vitest';
import { PET_STORE_ROUTE_OF } from '../../src/adapters/http/contract/pet-store-routes.js';
import { PET_STORE_OPERATIONS } from '../../src/adapters/http/operations/index.js';

describe('the routes the settings read', () => {
  it('are the operations the handler answers, each by its own operationId, in the same order', () => {
    const answered = PET_STORE_OPERATIONS.map(({ operationId, method, path }) => ({ operationId, method, path }));
    expect(Object.values(PET_STORE_ROUTE_OF)).toEqual(answered);
    for (const [name, route] of Object.entries(PET_STORE_ROUTE_OF)) expect(route.operationId).toBe(name);
  });
});
