import { expect } from 'vitest';
import { PetStoreError } from '../../src/client.js';

/** The PetStoreError `promise` rejects with; fails the test when it resolves or rejects with anything else. */
export async function rejection(promise: Promise<unknown>): Promise<PetStoreError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PetStoreError);
  return error as PetStoreError;
}
