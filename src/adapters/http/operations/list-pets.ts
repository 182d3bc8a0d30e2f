import { sendDomainError } from '../wire/failures.js';
import type { Operation, OperationServices, ReadAnswer } from '../contract/operation.js';
import { nextPageLink } from './listing.js';
import { sendJson } from '../wire/request-context.js';
import { listPetsDeclaration } from '../contract/declarations/list-pets.js';
import type { PetJsonPage } from '../../../domain/pets/pet-catalog.js';

const PATH = listPetsDeclaration.path;

// The answer to the last page, for a catalog that hands the same page back while nothing changed:
// its Link is then not written again, nor a closure made.
let lastPage: PetJsonPage | undefined;
let lastBasePath = '';
let lastAnswer: ReadAnswer | undefined;

const answerOf = (page: PetJsonPage, basePath: string): ReadAnswer => {
  if (page === lastPage && basePath === lastBasePath && lastAnswer !== undefined) return lastAnswer;
  const { json, next } = page;
  const link = next === undefined ? undefined : ['link', nextPageLink(basePath, PATH, next)];
  const answer: ReadAnswer = (ctx) => sendJson(ctx, 200, json, link);
  lastPage = page;
  lastBasePath = basePath;
  lastAnswer = answer;
  return answer;
};

// The query as routed, not copied: listJson reads only limit, status and cursor.
async function readPage(query: Readonly<Record<string, unknown>>, { catalog, basePath }: OperationServices): Promise<ReadAnswer> {
  const page = await catalog.listJson(query);
  if (!page.ok) return (ctx) => sendDomainError(ctx, page.error);
  return answerOf(page.value, basePath);
}

export const listPets = {
  ...listPetsDeclaration,
  readAhead: readPage,
  handler: async (ctx, services) => (await readPage(ctx.query, services))(ctx),
} as const satisfies Operation;
