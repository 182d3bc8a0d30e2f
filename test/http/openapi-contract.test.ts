import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PetBody } from '../support/http-client.js';
import { startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';

let store: TestPetStore;
let paths: Record<string, Record<string, unknown>>;
let petId: number;
let orderId: number;
/** A file of the docs page: the first the document names. */
let asset: string;

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** Paths no declaration has, next to the declared ones. */
const UNDECLARED = ['/', '/pets/1/photos', '/store', '/store/orders/1/items', '/docs/swagger-ui/index.html', '/openapi.yaml'];

const concrete = (template: string): string =>
  template.replace('{petId}', String(petId)).replace('{orderId}', String(orderId)).replace('{asset}', asset);
/** A 404 of no route says so; a HEAD answer has no body, but every documented path is probed with an existing pet. */
const isRouteMiss = (method: string, status: number, body: unknown): boolean =>
  status === 405 || (status === 404 && (method === 'HEAD' || /^No resource at /.test((body as { message?: string }).message ?? '')));

beforeAll(async () => {
  store = await startTestPetStore();
  petId = ((await store.client.post('/pets', { json: { name: 'Rex', categoryId: 1 } })).body as PetBody).id;
  const other = ((await store.client.post('/pets', { json: { name: 'Tom', categoryId: 1 } })).body as PetBody).id;
  orderId = ((await store.client.post('/store/orders', { json: { petId: other } })).body as { id: number }).id;
  paths = ((await store.anonymous.get('/openapi.json')).body as { paths: typeof paths }).paths;
  const assetParameter = (paths['/docs/{asset}']?.['get'] as { parameters: { schema: { enum: string[] } }[] }).parameters[0]!;
  asset = assetParameter.schema.enum[0]!;
});
afterAll(() => store.close());

describe('the served OpenAPI document and the routes answered cannot drift', () => {
  it('answers every operation of the document (no 404 or 405 for a documented method and path)', async () => {
    const operations = Object.entries(paths).flatMap(([template, item]) => Object.keys(item).map((method) => [method.toUpperCase(), template] as const));
    // 14 operations (9 of them GET), and HEAD beside each GET.
    expect(operations.length).toBe(23);
    for (const [method, template] of operations) {
      const result = await store.client.request(method, concrete(template), method === 'POST' ? { json: { name: 'Rex', categoryId: 1 } } : {});
      expect(isRouteMiss(method, result.status, result.body), `${method} ${template} -> ${result.status} ${result.text}`).toBe(false);
    }
  });

  it('documents every method and path the server answers, and the Allow list of a path is its documented methods', async () => {
    for (const path of [...Object.keys(paths).map(concrete), ...UNDECLARED]) {
      const template = Object.keys(paths).find((candidate) => concrete(candidate) === path);
      for (const method of METHODS) {
        const result = await store.client.request(method, path, method === 'POST' ? { json: { name: 'Rex', categoryId: 1 } } : {});
        const documented = template !== undefined && method.toLowerCase() in (paths[template] ?? {});
        expect(!isRouteMiss(method, result.status, result.body), `${method} ${path} -> ${result.status}`).toBe(documented);
        if (result.status === 405) {
          expect(result.headers.get('allow')).toBe(
            Object.keys(paths[template!] ?? {})
              .map((name) => name.toUpperCase())
              .sort()
              .join(', '),
          );
        }
      }
    }
  });
});
