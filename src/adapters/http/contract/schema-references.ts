import type { TSchema } from 'typebox';
import { ref } from './openapi-components.js';

/** A schema as a document holds it; `root`: the named schema itself, written out under components/schemas. */
export type DocumentSchema = (schema: unknown, root?: boolean) => unknown;

/**
 * Writes schemas for a document whose components/schemas are `named`: every named schema inside
 * one, and the schema itself unless it is the root, becomes a `$ref`.
 */
export function schemaReferences(named: Readonly<Record<string, TSchema>>): DocumentSchema {
  const namedByJson = new Map(Object.entries(named).map(([name, schema]) => [JSON.stringify(schema), name]));
  const documentSchema: DocumentSchema = (schema, root = false) => {
    if (typeof schema !== 'object' || schema === null) return schema;
    if (!root) {
      const name = namedByJson.get(JSON.stringify(schema));
      if (name !== undefined) return ref(`schemas/${name}`);
    }
    if (Array.isArray(schema)) return schema.map((item) => documentSchema(item));
    // JSON.stringify drops TypeBox's symbol-keyed markers, so the document holds plain JSON Schema.
    return JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, documentSchema(value)]))));
  };
  return documentSchema;
}
