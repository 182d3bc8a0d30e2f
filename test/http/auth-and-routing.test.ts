import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../support/openapi-validator.js';
import { expectError, listAll, type HttpResult } from '../support/http-client.js';
import { KEYS, startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';

// Requests without a valid key share one quota per client address (60 a minute): this file stays well under it.
let store: TestPetStore;
let petPath: string;

beforeAll(async () => {
  store = await startTestPetStore();
  const created = await store.client.post('/pets', { json: { name: 'Rex', categoryId: 1 } });
  petPath = `/pets/${(created.body as { id: number }).id}`;
});

afterAll(() => store.close());

function expectUnauthorized(result: HttpResult): void {
  expectError(result, 401, 'unauthorized');
  expect(result.headers.get('www-authenticate')).toMatch(/^Bearer( |$)/);
}

describe('authentication', () => {
  it('answers 401 with WWW-Authenticate: Bearer to every operation without an Authorization header', async () => {
    expectUnauthorized(await store.anonymous.get('/pets'));
    expectUnauthorized(await store.anonymous.get(petPath));
    const before = (await listAll(store.client)).pets;
    expectUnauthorized(await store.anonymous.post('/pets', { json: { name: 'Sneaky', categoryId: 1 } }));
    expect((await listAll(store.client)).pets, 'a refused create stores nothing').toEqual(before);
  });

  it.each([
    ['Basic ZW50LWtleS0xOg==', 'another scheme'],
    [`Token ${KEYS.enterprise}`, 'another scheme'],
    [KEYS.enterprise, 'no scheme'],
    [`Bearer${KEYS.enterprise}`, 'no space after the scheme'],
    ['Bearer', 'no token'],
    ['Bearer ', 'an empty token'],
    ['Bearer unknown-key', 'an unknown key'],
    [`Bearer ${KEYS.enterprise}x`, 'a key with a character more'],
    [`Bearer ${KEYS.enterprise.toUpperCase()}`, 'a key in the wrong case'],
  ])('answers 401 to %j (%s)', async (authorization) => {
    expectUnauthorized(await store.anonymous.get('/pets', { authorization }));
  });

  it('refuses a create with an unknown key and stores nothing', async () => {
    const before = (await listAll(store.client)).pets;
    expectUnauthorized(await store.anonymous.post('/pets', { authorization: 'Bearer nope', json: { name: 'Sneaky', categoryId: 1 } }));
    expect((await listAll(store.client)).pets).toEqual(before);
  });

  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('accepts the scheme spelled %s', async (scheme) => {
    const result = await store.anonymous.get('/pets', { authorization: `${scheme} ${KEYS.enterprise}` });
    expect(result.status).toBe(200);
  });

  it('accepts a key of every plan', async () => {
    for (const key of Object.values(KEYS)) expect((await store.anonymous.get('/pets', { key })).status, key).toBe(200);
  });
});

describe('routing, before authentication', () => {
  const unknownPaths = ['/v1/nope', '/v1/pets/1/owner', '/v1/store/things', '/pets', '/nope', '/v1', '/v2/pets', '/'];

  it.each(unknownPaths)('answers 404 not_found to GET %s with a key', async (path) => {
    expectError(await store.client.get(new URL(path, store.baseUrl).href), 404, 'not_found');
  });

  it.each(unknownPaths.slice(0, 4))('answers 404 not_found to GET %s without a key, or with an unknown one', async (path) => {
    expectError(await store.anonymous.get(new URL(path, store.baseUrl).href), 404, 'not_found');
    expectError(await store.anonymous.get(new URL(path, store.baseUrl).href, { key: 'nope' }), 404, 'not_found');
  });

  it('answers 404 to other methods on an unknown path', async () => {
    expectError(await store.client.request('DELETE', '/nope'), 404, 'not_found');
    expectError(await store.client.post('/nope', { json: {} }), 404, 'not_found');
  });

  it.each([
    ['DELETE', '/pets', 'GET, HEAD, POST'],
    ['PUT', '/pets', 'GET, HEAD, POST'],
    ['PATCH', '/pets', 'GET, HEAD, POST'],
    ['DELETE', '/pets/1', 'GET, HEAD, PATCH'],
    ['POST', '/pets/1', 'GET, HEAD, PATCH'],
    ['PUT', '/pets/1', 'GET, HEAD, PATCH'],
    ['POST', '/openapi.json', 'GET, HEAD'],
  ])('answers 405 method_not_allowed to %s %s with Allow: %s, with a key', async (method, path, allow) => {
    const result = await store.client.request(method, path);
    expectError(result, 405, 'method_not_allowed');
    expect(result.headers.get('allow')).toBe(allow);
  });

  it.each([
    ['DELETE', '/pets', 'GET, HEAD, POST'],
    ['POST', '/pets/1', 'GET, HEAD, PATCH'],
  ])('answers 405 to %s %s with Allow: %s without a key, or with an unknown one', async (method, path, allow) => {
    for (const key of [null, 'nope']) {
      const result = await store.anonymous.request(method, path, { key });
      expectError(result, 405, 'method_not_allowed');
      expect(result.headers.get('allow')).toBe(allow);
    }
  });

  it('answers 405 to a method on a route it does not have, whatever the petId', async () => {
    const result = await store.client.request('DELETE', '/pets/not-a-number');
    expectError(result, 405, 'method_not_allowed');
    expect(result.headers.get('allow')).toBe('GET, HEAD, PATCH');
  });

  it('does not store anything on a 404 or 405', async () => {
    const before = (await listAll(store.client)).pets;
    await store.client.request('PUT', '/pets', { json: { name: 'Rex', categoryId: 1 } });
    await store.client.post('/pets/1', { json: { name: 'Rex', categoryId: 1 } });
    await store.client.post('/v1/pets', { json: { name: 'Rex', categoryId: 1 } });
    expect((await listAll(store.client)).pets).toEqual(before);
  });
});

describe('GET /v1/openapi.json', () => {
  const expected = JSON.parse(JSON.stringify(openApiDocument)) as unknown;

  it('serves the OpenAPI document without a key', async () => {
    const result = await store.anonymous.get('/openapi.json');
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toMatch(/^application\/json/);
    expect(result.body).toEqual(expected);
  });

  it('serves it with a key, or with an unknown one', async () => {
    expect((await store.client.get('/openapi.json')).body).toEqual(expected);
    expect((await store.anonymous.get('/openapi.json', { key: 'nope' })).body).toEqual(expected);
  });

  it('describes the API as built: version 1.0.0, the serving origin alone, bearer security, getPet deprecated', async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON tree read by path
    const document = (await store.anonymous.get('/openapi.json')).body as any;
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    // The server the document came from alone: the docs page's "Try it out" may reach no other under its CSP.
    expect(document.servers.map((server: { url: string }) => server.url)).toEqual(['/v1']);
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.paths['/pets/{petId}'].get.deprecated).toBe(true);
    expect(Object.keys(document.paths).sort()).toEqual(['/docs', '/docs/{asset}', '/openapi.json', '/pets', '/pets/{petId}', '/rate_limit', '/store/inventory', '/store/orders', '/store/orders/{orderId}']);
  });
});
