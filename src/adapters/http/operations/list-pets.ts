import { sendDomainError } from '../wire/failures.js';
import type { Operation, OperationServices, ReadAnswer } from '../contract/operation.js';
import { nextPageLink } from './listing.js';
import { sendJson } from '../wire/request-context.js';
import { listPetsDeclaration } from '../contract/declarations/list-pets.js';

const PATH = listPetsDeclaration.path;

async function readPage({ limit, status, cursor }: Readonly<Record<string, unknown>>, { catalog, basePath }: OperationServices): Promise<ReadAnswer> {
  const page = await catalog.listJson({ limit, status, cursor });
  if (!page.ok) return (ctx) => sendDomainError(ctx, page.error);
  const { json, next } = page.value;
  return (ctx) => sendJson(ctx, 200, json, next === undefined ? undefined : ['link', nextPageLink(basePath, PATH, next)]);
}

export const listPets = {
  ...listPetsDeclaration,
  readAhead: readPage,
  handler: async (ctx, services) => (await readPage(ctx.query, services))(ctx),
} as const satisfies Operation;
