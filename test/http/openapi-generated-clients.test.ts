import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPetStore, type TestPetStore } from '../support/test-pet-store.js';

/*
 * openapi-typescript (7.x, `--default-non-nullable` on by default) emits a schema property that
 * carries `default` as required, whatever `required` says, except inline in parameters and
 * request bodies (openapi-typescript#2489). A component a request body refers to is no such
 * exception: `NewPet.status` with a default came out required, and a strict client failed to
 * compile `{ name, categoryId }`. So no component property outside `required` carries `default`;
 * the value a server assumes is said in its description.
 */

interface SchemaObject {
  readonly properties?: Readonly<Record<string, SchemaObject & { readonly default?: unknown; readonly description?: string }>>;
  readonly required?: readonly string[];
}

describe('the served OpenAPI document, as openapi-typescript reads it', () => {
  let store: TestPetStore;
  let schemas: Readonly<Record<string, SchemaObject>>;
  beforeAll(async () => {
    store = await startTestPetStore();
    schemas = ((await (await fetch(`${store.baseUrl}/openapi.json`)).json()) as { components: { schemas: Record<string, SchemaObject> } }).components.schemas;
  });
  afterAll(async () => {
    await store.close();
  });

  it('has no optional component property with a default, which generated types would make required', () => {
    const defaulted = Object.entries(schemas).flatMap(([name, schema]) =>
      Object.entries(schema.properties ?? {})
        .filter(([property, value]) => value.default !== undefined && !(schema.required ?? []).includes(property))
        .map(([property]) => `${name}.${property}`),
    );
    expect(defaulted).toEqual([]);
  });

  it("keeps NewPet.status optional and says in words what its absence means", () => {
    const newPet = schemas['NewPet'];
    expect(newPet?.required ?? []).not.toContain('status');
    expect(newPet?.properties?.['status']?.description).toMatch(/absent.*available|available.*when absent/i);
  });
});
