import { describe, expect, it } from 'vitest';
import { checkOperations } from '../../src/adapters/http/contract/operation-table.js';
import type { Operation } from '../../src/adapters/http/contract/operation.js';
import { PET_STORE_OPERATIONS } from '../../src/adapters/http/operations/index.js';
import { getPet } from '../../src/adapters/http/operations/get-pet.js';
import { createApiRouter } from '../../src/adapters/http/pipeline/api-router.js';

const deprecatedAt = new Date('2026-01-01T00:00:00Z');
const withGetPet = (change: Partial<Operation>): readonly Operation[] => [...PET_STORE_OPERATIONS, { ...getPet, operationId: 'other', ...change }];

describe('the start-up check of the operation table', () => {
  it('accepts the pet store table', () => {
    expect(() => checkOperations(PET_STORE_OPERATIONS)).not.toThrow();
  });

  it.each<[string, Partial<Operation>, RegExp]>([
    ['a path parameter without a schema', { method: 'DELETE', path: '/pets/{petId}/{tag}' }, /path parameter \{tag\} has no schema/],
    ['a parameter schema for no path parameter', { method: 'DELETE', path: '/pets' }, /parameter petId is not in the path/],
    ['two declarations of one method and path, whatever the parameter names', { path: '/pets/{id}', params: { id: getPet.params.petId } }, /same method and path/],
    ['an error code under another status', { method: 'DELETE', responses: { 400: { description: 'x', errors: ['not_found'] } } }, /not_found is a 404, declared under 400/],
    ['a path that is not /segments with {name} parameters', { method: 'DELETE', path: 'pets/{petId}' }, /path must be/],
  ])('fails loudly on %s', (_what, change, message) => {
    expect(() => checkOperations(withGetPet(change))).toThrow(message);
    expect(() => createApiRouter(withGetPet(change), { deprecatedAt })).toThrow(message);
  });

  it('fails on a reused operationId', () => {
    expect(() => checkOperations([...PET_STORE_OPERATIONS, { ...getPet, method: 'DELETE' }])).toThrow(/getPet .* operationId is declared twice/);
  });
});

describe('the router derived from the table', () => {
  const router = createApiRouter(PET_STORE_OPERATIONS, { deprecatedAt });

  it('answers HEAD wherever GET is declared, and lists the methods of a path for Allow', () => {
    expect(router.allowedMethods('/v1/pets?limit=1')).toEqual(['GET', 'HEAD', 'POST']);
    expect(router.allowedMethods('/v1/pets/12')).toEqual(['GET', 'HEAD', 'PATCH']);
    expect(router.allowedMethods('/v1/nothing')).toEqual([]);
    expect(router.find('HEAD', '/v1/pets/12')).toMatchObject({ kind: 'route', params: { petId: '12' } });
  });

  it('routes an id segment of any length to its operation, so it is answered 400, not 404', () => {
    const id = '9'.repeat(10_000);
    expect(router.find('GET', `/v1/pets/${id}`)).toMatchObject({ kind: 'route', params: { petId: id } });
  });

  it('carries the deprecation fields of getPet on its route, for every answer', () => {
    const match = router.find('GET', '/v1/pets/1');
    expect(match?.kind === 'route' && match.route.headers).toEqual([
      'deprecation',
      '@1767225600',
      'sunset',
      'Thu, 05 Dec 2030 00:00:00 GMT',
      'link',
      '</v1/pets>; rel="successor-version"',
    ]);
  });
});
