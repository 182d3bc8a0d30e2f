import { sendDomainError } from '../wire/failures.js';
import type { Operation, OperationServices, ReadAnswer } from '../contract/operation.js';
import { nextPageLink } from './listing.js';
import { sendJson } from '../wire/request-context.js';
import { listPetsDeclaration } from '../contract/declarations/list-pets.js';

const PATH = listPetsDeclaration.path;

// The query as routed, not copied: listJson reads only limit, status and cursor.
async function readPage(query: Readonly<Record<string, unknown>>, { catalog, basePath }: OperationServices): Promise<ReadAnswer> {
  const page = await catalog.listJson(query);
  if (!page.ok) return (ctx) => sendDomainError(ctx, page.error);
  const { json, next } = page.value;
  const link = next === undefined ? undefined : ['link', nextPageLink(basePath, PATH, next)];
  return (ctx) => sendJson(ctx, 200, json, link);
}

export const listPets = {
  ...listPetsDeclaration,
  readAhead: readPage,
  handler: async (ctx, services) => (await readPage(ctx.query, services))(ctx),
} as const satisfies Operation;
