import { sendDomainError } from '../wire/failures.js';
import type { Operation, OperationServices, ReadAnswer } from '../contract/operation.js';
import { nextPageLink } from './listing.js';
import { sendJson } from '../wire/request-context.js';
import { listPetsDeclaration } from '../contract/declarations/list-pets.js';
import type { PetCatalog } from '../../../domain/pets/pet-catalog.js';
import type { CallScope } from '../../../ports/tracer.js';

const PATH = listPetsDeclaration.path;

/** Answers kept between two writes; past it they are dropped and read again. */
const ANSWERS_KEPT = 1_024;

/**
 * The list path's one page cache: each catalog's answers by the query as sent, kept while its
 * store's write count stands still (stores that can tell it without a round trip: memory) and
 * dropped when it moves. A page answered again skips the query's parsing, the store's join, the
 * cursor and the Link, and sends strings already flat.
 */
interface KeptAnswers {
  version: number;
  readonly answers: Map<string, ReadAnswer>;
}
const keptAnswers = new WeakMap<PetCatalog, KeptAnswers>();

/** A value as the key writes it: `=` before a given one, so `?limit=` and no limit differ; undefined for what is never kept. */
const keyPart = (value: unknown): string | undefined => {
  if (value === undefined) return '';
  // A repeated parameter (an array), or a line break, which would let two queries write one key.
  return typeof value === 'string' && !value.includes('\n') ? `=${value}` : undefined;
};

/** The query as sent, with the path it is answered under; undefined for a query that is never kept. */
function answerKey(query: Readonly<Record<string, unknown>>, basePath: string): string | undefined {
  const limit = keyPart(query['limit']);
  const status = keyPart(query['status']);
  const cursor = keyPart(query['cursor']);
  return limit === undefined || status === undefined || cursor === undefined ? undefined : `${limit}\n${status}\n${cursor}\n${basePath}`;
}

/** The catalog's kept answers at `version`: none once its store has written since they were kept. */
function answersAt(catalog: PetCatalog, version: number): Map<string, ReadAnswer> {
  let kept = keptAnswers.get(catalog);
  if (kept === undefined) {
    kept = { version, answers: new Map() };
    keptAnswers.set(catalog, kept);
  } else if (kept.version !== version) {
    kept.version = version;
    kept.answers.clear();
  }
  return kept.answers;
}

// The query as routed, not copied: listJson reads only limit, status and cursor.
async function readPage(query: Readonly<Record<string, unknown>>, { catalog, basePath }: OperationServices, scope: CallScope | undefined): Promise<ReadAnswer> {
  const version = catalog.pagesVersion();
  const key = version === undefined ? undefined : answerKey(query, basePath);
  const answers = key === undefined || version === undefined ? undefined : answersAt(catalog, version);
  const kept = key === undefined ? undefined : answers?.get(key);
  if (kept !== undefined) return kept;
  const page = await catalog.listJson(query, scope);
  if (!page.ok) return (ctx) => sendDomainError(ctx, page.error);
  const { json, next } = page.value;
  const link = next === undefined ? undefined : ['link', nextPageLink(basePath, PATH, next)];
  const answer: ReadAnswer = (ctx) => sendJson(ctx, 200, json, link);
  // Kept only if no write landed while the page was read.
  if (answers !== undefined && key !== undefined && catalog.pagesVersion() === version) {
    if (answers.size >= ANSWERS_KEPT) answers.clear();
    answers.set(key, answer);
  }
  return answer;
}

export const listPets = {
  ...listPetsDeclaration,
  readAhead: readPage,
  handler: async (ctx, services) => (await readPage(ctx.query, services, ctx.span))(ctx),
} as const satisfies Operation;
