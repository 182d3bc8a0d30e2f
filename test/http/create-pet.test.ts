import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, listAll, type HttpResult, type PetBody, type RequestOptions } from '../support/http-client.js';
import { startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';

let store: TestPetStore;

beforeAll(async () => {
  store = await startTestPetStore();
});

afterAll(() => store.close());

const create = (options: RequestOptions): Promise<HttpResult> => store.client.post('/pets', options);
const everyPet = async (): Promise<PetBody[]> => (await listAll(store.client, '?limit=100')).pets;

/** Sends a request that must be refused, and checks the refusal stored nothing. */
async function expectRejected(options: RequestOptions, status: number, code: string, field?: string): Promise<void> {
  const before = await everyPet();
  expectError(await create(options), status, code, field);
  expect(await everyPet(), 'a rejected request stores nothing').toEqual(before);
}

describe('POST /v1/pets (createPet)', () => {
  it('answers 201 with the pet, its assigned id and Location: /v1/pets/{id}, and stores it', async () => {
    const result = await create({ json: { name: 'Rex', categoryId: 3, status: 'available' } });
    expect(result.status).toBe(201);
    const pet = result.body as PetBody;
    expect(pet).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'available' });
    expect(Number.isSafeInteger(pet.id) && pet.id >= 1).toBe(true);
    expect(result.headers.get('location')).toBe(`/v1/pets/${pet.id}`);

    const fetched = await store.client.get(`/pets/${pet.id}`);
    expect(fetched.body).toEqual(pet);
    expect(await everyPet()).toContainEqual(pet);
  });

  it('assigns increasing ids', async () => {
    const first = (await create({ json: { name: 'a', categoryId: 1 } })).body as PetBody;
    const second = (await create({ json: { name: 'b', categoryId: 1 } })).body as PetBody;
    expect(second.id).toBeGreaterThan(first.id);
  });

  it('stores the name trimmed', async () => {
    const result = await create({ json: { name: '  \t Rex the Dog \n ', categoryId: 1 } });
    expect(result.status).toBe(201);
    expect((result.body as PetBody).name).toBe('Rex the Dog');
  });

  it('gives a pet without status the status available', async () => {
    const result = await create({ json: { name: 'Tom', categoryId: 2 } });
    expect(result.status).toBe(201);
    expect((result.body as PetBody).status).toBe('available');
  });

  // The interface's NewPet has an optional status of any PetStatus, and createPet answers 201, 400 or 401.
  it.each(['available', 'pending', 'sold'])('creates a pet %s for any valid key, a customer\'s as a staff key\'s: 201, stored as given', async (status) => {
    for (const client of [store.client, store.staff]) {
      const result = await client.post('/pets', { json: { name: 'Kit', categoryId: 1, status } });
      expect(result.status, result.text).toBe(201);
      const pet = result.body as PetBody;
      expect(pet).toEqual({ id: expect.any(Number), name: 'Kit', categoryId: 1, status });
      expect(await everyPet()).toContainEqual(pet);
    }
  });

  it('accepts names of 1 and of 100 code points, counting an emoji as one', async () => {
    for (const name of ['x', 'é'.repeat(100), '🐶'.repeat(100), `  ${'n'.repeat(100)}  `]) {
      const result = await create({ json: { name, categoryId: 1 } });
      expect(result.status, name).toBe(201);
      expect((result.body as PetBody).name).toBe(name.trim());
    }
  });

  it('accepts categoryId 1 and 9007199254740991, and 3.0 as 3', async () => {
    for (const [raw, expected] of [['1', 1], ['9007199254740991', 9007199254740991], ['3.0', 3], ['3.000', 3]] as const) {
      const result = await create({ raw: `{"name":"Num","categoryId":${raw}}` });
      expect(result.status, raw).toBe(201);
      expect((result.body as PetBody).categoryId).toBe(expected);
    }
  });

  it('accepts application/json with a charset parameter, and the media type in any case', async () => {
    for (const contentType of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON']) {
      const result = await create({ json: { name: 'Typed', categoryId: 1 }, contentType });
      expect(result.status, contentType).toBe(201);
    }
  });

  it('accepts a body of exactly 16 KiB', async () => {
    const json = JSON.stringify({ name: 'Big', categoryId: 1 });
    const raw = json.slice(0, -1) + ' '.repeat(16 * 1024 - json.length) + '}';
    expect(Buffer.byteLength(raw)).toBe(16 * 1024);
    expect((await create({ raw })).status).toBe(201);
  });

  describe('rejects, storing nothing', () => {
    it.each([
      ['{"name":', 'truncated'],
      ['{name: "Rex", categoryId: 1}', 'unquoted keys'],
      ['{"name":"Rex","categoryId":1,}', 'trailing comma'],
      ["{'name':'Rex','categoryId':1}", 'single quotes'],
      ['{"name":"Rex","categoryId":1}{', 'trailing garbage'],
    ])('malformed JSON %j (%s) with 400', async (raw) => {
      await expectRejected({ raw }, 400, 'invalid_request');
    });

    it.each([
      ['', 'empty'],
      ['   ', 'whitespace only'],
    ])('an %j (%s) body with 400', async (raw) => {
      await expectRejected({ raw }, 400, 'invalid_request');
    });

    it('no body at all with 400', async () => {
      await expectRejected({ contentType: 'application/json' }, 400, 'invalid_request');
    });

    it.each(['[]', '[{"name":"Rex","categoryId":1}]', 'null', '"Rex"', '42', 'true'])('the non-object body %s with 400', async (raw) => {
      await expectRejected({ raw }, 400, 'invalid_request');
    });

    it.each([
      [{ categoryId: 1 }, 'name'],
      [{ name: 'Rex' }, 'categoryId'],
      [{}, 'name'],
    ])('%j, missing a required field, with 400 naming it', async (json, field) => {
      await expectRejected({ json }, 400, 'invalid_request', field);
    });

    it.each([
      [{ name: 5, categoryId: 1 }, 'name'],
      [{ name: null, categoryId: 1 }, 'name'],
      [{ name: ['Rex'], categoryId: 1 }, 'name'],
      [{ name: { first: 'Rex' }, categoryId: 1 }, 'name'],
      [{ name: 'Rex', categoryId: '3' }, 'categoryId'],
      [{ name: 'Rex', categoryId: null }, 'categoryId'],
      [{ name: 'Rex', categoryId: true }, 'categoryId'],
      [{ name: 'Rex', categoryId: [3] }, 'categoryId'],
      [{ name: 'Rex', categoryId: 1.5 }, 'categoryId'],
      [{ name: 'Rex', categoryId: 0 }, 'categoryId'],
      [{ name: 'Rex', categoryId: -1 }, 'categoryId'],
      [{ name: 'Rex', categoryId: 1, status: 'lost' }, 'status'],
      [{ name: 'Rex', categoryId: 1, status: 'Available' }, 'status'],
      [{ name: 'Rex', categoryId: 1, status: null }, 'status'],
      [{ name: 'Rex', categoryId: 1, status: 1 }, 'status'],
    ])('%j, a wrong type or value, with 400 naming the field', async (json, field) => {
      await expectRejected({ json }, 400, 'invalid_request', field);
    });

    it.each(['', '   ', '\t\n', 'n'.repeat(101), '🐶'.repeat(101), 'Re\u0000x', 'Re\u0007x', 'Re\u007fx', 'Re\u0085x', 'Re\u009fx', 'a\tb'])(
      'the name %j with 400 naming name',
      async (name) => {
        await expectRejected({ json: { name, categoryId: 1 } }, 400, 'invalid_request', 'name');
      },
    );

    it.each(['9007199254740992', '9007199254740993', '18446744073709551616', '1e400', '-9007199254740993'])(
      'the unsafe integer categoryId %s, sent as raw text, with 400 naming categoryId',
      async (raw) => {
        await expectRejected({ raw: `{"name":"Rex","categoryId":${raw}}` }, 400, 'invalid_request', 'categoryId');
      },
    );

    it.each([
      [{ name: 'Rex', categoryId: 1, color: 'brown' }, 'color'],
      [{ name: 'Rex', categoryId: 1, id: 5 }, 'id'],
      [{ id: 5, name: 'Rex', categoryId: 1, status: 'sold' }, 'id'],
      [{ name: 'Rex', categoryId: 1, tags: [] }, 'tags'],
    ])('%j, with a field NewPet does not have, with 400 naming it', async (json, field) => {
      await expectRejected({ json }, 400, 'invalid_request', field);
    });

    it('a duplicate key with a bad value with 400', async () => {
      await expectRejected({ raw: '{"name":"Rex","categoryId":1,"categoryId":"x"}' }, 400, 'invalid_request', 'categoryId');
    });

    it('a body one byte over 16 KiB with 413 payload_too_large', async () => {
      const json = JSON.stringify({ name: 'Big', categoryId: 1 });
      const raw = json.slice(0, -1) + ' '.repeat(16 * 1024 + 1 - json.length) + '}';
      expect(Buffer.byteLength(raw)).toBe(16 * 1024 + 1);
      await expectRejected({ raw }, 413, 'payload_too_large');
    });

    it('a 1 MiB body with 413 payload_too_large', async () => {
      await expectRejected({ raw: `{"name":"${'x'.repeat(1024 * 1024)}","categoryId":1}` }, 413, 'payload_too_large');
    });

    it('an oversized body streamed without Content-Length with 413 payload_too_large', async () => {
      const chunk = new TextEncoder().encode(' '.repeat(4096));
      let sent = 0;
      const raw = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode('{"name":"Rex","categoryId":1'));
          if (sent >= 8) {
            controller.enqueue(new TextEncoder().encode('}'));
            controller.close();
            return;
          }
          controller.enqueue(chunk);
          sent++;
        },
      });
      await expectRejected({ raw }, 413, 'payload_too_large');
    });

    it('no Content-Type with 415 unsupported_media_type', async () => {
      await expectRejected({ json: { name: 'Rex', categoryId: 1 }, contentType: null }, 415, 'unsupported_media_type');
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'application/json-patch+json', 'text/json', 'multipart/form-data; boundary=x'])(
      'Content-Type %s with 415 unsupported_media_type',
      async (contentType) => {
        await expectRejected({ json: { name: 'Rex', categoryId: 1 }, contentType }, 415, 'unsupported_media_type');
      },
    );

    it('a query parameter with 400 naming it', async () => {
      const before = await everyPet();
      expectError(await store.client.post('/pets?dryRun=true', { json: { name: 'Rex', categoryId: 1 } }), 400, 'invalid_request', 'dryRun');
      expect(await everyPet()).toEqual(before);
    });
  });
});
