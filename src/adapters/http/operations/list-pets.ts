import type { PetPage } from '../../../domain/pets/pet-catalog.js';
import { BASE_PATH } from '../base-path.js';
import { sendDomainError } from '../failures.js';
import type { Operation } from '../operation.js';
import { serializePets } from '../pet-json.js';
import { sendJson } from '../request-context.js';
import { PageLimitSchema, PetStatusSchema, PetsSchema } from '../schemas.js';
import Type from 'typebox';

const PATH = '/pets';

function nextLink(next: NonNullable<PetPage['next']>): string {
  const status = next.status === undefined ? '' : `&status=${next.status}`;
  return `<${BASE_PATH}${PATH}?limit=${next.limit}${status}&cursor=${encodeURIComponent(next.cursor)}>; rel="next"`;
}

export const listPets = {
  operationId: 'listPets',
  method: 'GET',
  path: PATH,
  auth: 'apiKey',
  tags: ['Pets'],
  summary: 'List animals',
  description: 'Animals in ascending `id` order. The body is a bare array; the next page, if any, is announced in the `Link` header.',
  query: {
    limit: { description: 'Maximum number of animals returned: plain decimal digits.', schema: PageLimitSchema },
    status: { description: 'Keeps only animals with this status.', schema: PetStatusSchema },
    cursor: {
      description: 'Opaque: taken from the `rel="next"` link of the previous page. Any other value is a 400.',
      schema: Type.String(),
    },
  },
  responses: {
    200: { description: 'A page of animals.', body: PetsSchema, headers: { Link: 'NextLink' } },
  },
  handler: async (ctx, { catalog }) => {
    const { limit, status, cursor } = ctx.query;
    const page = await catalog.list({ limit, status, cursor });
    if (!page.ok) return sendDomainError(ctx, page.error);
    const next = page.value.next;
    sendJson(ctx, 200, serializePets(page.value.pets), next === undefined ? undefined : ['link', nextLink(next)]);
  },
} as const satisfies Operation;
