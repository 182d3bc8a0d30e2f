import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { PetStoreClient, PetStoreError } from '../../src/client.js';
import { STANDARD_PLANS } from '../../src/domain/quota/plan.js';
import { KEYS, startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';

let store: TestPetStore;
beforeAll(async () => {
  store = await startTestPetStore();
});
afterAll(async () => {
  await store.close();
});

/** The client example of docs/embedding.md ("The client"), line for line but for the server's URL and key (there: `npm start`'s and PETSTORE_KEY). */
async function readmeExample(baseUrl: string, apiKey: string): Promise<void> {
  const client = new PetStoreClient({ baseUrl, apiKey, retry: { maxAttempts: 5, maxWaitMs: 60_000 } });
  const rex = await client.createPet({ name: 'Rex', categoryId: 1 });
  for await (const pet of client.pets({ status: 'available', limit: 100 })) console.log(pet.id, pet.name);
  const order = await client.placeOrder({ petId: rex.id });
  console.log(order.status, client.rateLimit?.rules[0]); // placed { name: 'minute', remaining: 297, ... }
  await client.getOrder(999_999).catch((error: unknown) => {
    if (error instanceof PetStoreError) console.log(error.status, error.code); // 404 not_found
  });
}

it('runs the docs/embedding.md example: create, iterate, an order, the retry options', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    await readmeExample(store.baseUrl, KEYS.pro);
    // Three requests before the order's answer: the create, the one page, the order.
    const minute = STANDARD_PLANS.pro.rules[0];
    expect(log.mock.calls).toEqual([
      [1, 'Rex'],
      ['placed', { name: minute?.name, remaining: (minute?.limit ?? 0) - 3, resetSeconds: expect.any(Number), limit: minute?.limit, windowSeconds: 60 }],
      [404, 'not_found'],
    ]);
  } finally {
    log.mockRestore();
  }
});
