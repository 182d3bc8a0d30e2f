import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type HttpResult, type PetBody } from '../support/http-client.js';
import { startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';

let store: TestPetStore;
let rex: PetBody;

beforeAll(async () => {
  store = await startTestPetStore();
  rex = (await store.staff.post('/pets', { json: { name: 'Rex', categoryId: 3, status: 'sold' } })).body as PetBody;
});

afterAll(() => store.close());

/** RFC 9745, RFC 8594 and the successor link, on every answer of the deprecated getPet. */
function expectDeprecationHeaders(result: HttpResult): void {
  expect(result.headers.get('deprecation')).toBe('@1767225600');
  expect(result.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  expect(result.headers.get('link')).toBe('</v1/pets>; rel="successor-version"');
}

describe('GET /v1/pets/{petId} (getPet, deprecated)', () => {
  it('answers 200 with the pet', async () => {
    const result = await store.client.get(`/pets/${rex.id}`);
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ id: rex.id, name: 'Rex', categoryId: 3, status: 'sold' });
    expectDeprecationHeaders(result);
  });

  it('returns each pet by its own id', async () => {
    const pets: PetBody[] = [];
    for (let i = 0; i < 5; i++) {
      pets.push((await store.client.post('/pets', { json: { name: `p${i}`, categoryId: i + 1 } })).body as PetBody);
    }
    for (const pet of pets) expect((await store.client.get(`/pets/${pet.id}`)).body).toEqual(pet);
  });

  it.each(['999999', '9007199254740991'])('answers 404 not_found for the unknown id %s', async (petId) => {
    const result = await store.client.get(`/pets/${petId}`);
    expectError(result, 404, 'not_found');
    expectDeprecationHeaders(result);
  });

  it.each(['abc', '0', '-1', '1.5', '1.0', '1e1', '0x10', '+1', '%201', '9007199254740992', '9007199254740993', '99999999999999999999999', 'null'])(
    'answers 400 naming petId for %j',
    async (petId) => {
      const result = await store.client.get(`/pets/${petId}`);
      expectError(result, 400, 'invalid_request', 'petId');
      expectDeprecationHeaders(result);
    },
  );

  it('rejects a query parameter with 400, still deprecated', async () => {
    const result = await store.client.get(`/pets/${rex.id}?fields=name`);
    expectError(result, 400, 'invalid_request', 'fields');
    expectDeprecationHeaders(result);
  });
});
