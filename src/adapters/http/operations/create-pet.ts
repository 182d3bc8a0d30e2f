import { sendDomainError } from '../failures.js';
import { readJsonBody, isJsonContentType } from '../json-body.js';
import type { Operation } from '../operation.js';
import { serializePet } from '../pet-json.js';
import { sendError, sendJson } from '../request-context.js';
import { MAX_BODY_BYTES } from '../request-limits.js';
import { NewPetSchema, PetSchema } from '../schemas.js';
import { BASE_PATH } from '../base-path.js';
import { getPet } from './get-pet.js';

const CLOSE = ['connection', 'close'];
// `/v1/pets/` from getPet's declared path, built once.
const LOCATION_PREFIX = BASE_PATH + getPet.path.slice(0, getPet.path.indexOf('{'));

export const createPet = {
  operationId: 'createPet',
  method: 'POST',
  path: '/pets',
  auth: 'apiKey',
  tags: ['Pets'],
  summary: 'Add an animal',
  body: {
    description: `A JSON object of at most ${MAX_BODY_BYTES} bytes of UTF-8; \`Content-Type: application/json\` (a charset parameter is fine).`,
    schema: NewPetSchema,
  },
  responses: {
    201: { description: 'Animal added; the body carries its assigned `id`.', body: PetSchema, headers: { Location: 'Location' } },
  },
  handler: async (ctx, { catalog }) => {
    if (!isJsonContentType(ctx.req.headers['content-type'])) return sendError(ctx, 'unsupported_media_type');
    const body = await readJsonBody(ctx);
    if (!body.ok) return sendError(ctx, body.code, body.message, body.code === 'payload_too_large' ? CLOSE : undefined);
    const created = await catalog.create(body.value);
    if (!created.ok) return sendDomainError(ctx, created.error);
    sendJson(ctx, 201, serializePet(created.value), ['location', LOCATION_PREFIX + created.value.id]);
  },
} as const satisfies Operation;
