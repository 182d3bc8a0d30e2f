import { createServer } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestHandler } from '../../src/adapters/http/request-handler.js';
import { PET_STATUSES, type PetStatus } from '../../src/domain/pets/pet.js';
import { STANDARD_PLANS, enterprisePlan } from '../../src/domain/quota/plan.js';
import { handlerDependencies, listening, type Host } from '../support/handler-hosts.js';
import { runs } from '../support/property-runs.js';

const STAFF = 'page-cache-staff-key';
const UNLIMITED = enterprisePlan(1_000_000, 100_000_000);

interface PetJson {
  readonly id: number;
  readonly status: PetStatus;
}

const statusArb = fc.constantFrom(...PET_STATUSES);
const queryArb = fc.record({ limit: fc.integer({ min: 1, max: 6 }), status: fc.option(statusArb, { nil: undefined }) });
const stepArb = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), status: statusArb }),
  fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), status: statusArb }),
  fc.record({ kind: fc.constant('read' as const), query: queryArb }),
);

describe('the list path’s page cache (memory store)', () => {
  let host: Host;
  beforeAll(async () => {
    const deps = await handlerDependencies({ [STAFF]: { plan: UNLIMITED, role: 'staff' } });
    host = await listening(createServer(createRequestHandler(deps)).listen(0, '127.0.0.1'));
  });
  afterAll(() => host.close());

  const send = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown; link: string | null }> => {
    const response = await fetch(`${host.origin}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${STAFF}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: await response.json(), link: response.headers.get('link') };
  };

  it('a page asked again after any create or status change shows the pets as they are now, never an answer kept before the write', async () => {
    // One store for every run: each run's model starts from what the store holds.
    const model = new Map<number, PetStatus>();
    for (const pet of (await send('GET', '/pets?limit=100')).json as PetJson[]) model.set(pet.id, pet.status);
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { maxLength: 20 }), fc.array(queryArb, { minLength: 1, maxLength: 3 }), async (steps, watched) => {
        const check = async ({ limit, status }: { limit: number; status: PetStatus | undefined }) => {
          const matching = [...model.entries()].filter(([, held]) => status === undefined || held === status).map(([id]) => id);
          const answer = await send('GET', `/pets?limit=${limit}${status === undefined ? '' : `&status=${status}`}`);
          expect(answer.status).toBe(200);
          expect((answer.json as PetJson[]).map((pet) => [pet.id, pet.status])).toEqual(matching.slice(0, limit).map((id) => [id, model.get(id)]));
          expect(answer.link !== null).toBe(matching.length > limit);
        };
        for (const step of steps) {
          // Read before the write (so an answer is kept), then after it.
          for (const query of watched) await check(query);
          if (step.kind === 'create') {
            const created = await send('POST', '/pets', { name: 'cached?', categoryId: 1, status: step.status });
            expect(created.status).toBe(201);
            model.set((created.json as PetJson).id, step.status);
          } else if (step.kind === 'update' && model.size > 0) {
            const ids = [...model.keys()];
            const id = ids[step.pick % ids.length]!;
            expect((await send('PATCH', `/pets/${id}`, { status: step.status })).status).toBe(200);
            model.set(id, step.status);
          } else if (step.kind === 'read') {
            await check(step.query);
          }
          for (const query of watched) await check(query);
        }
      }),
      { numRuns: runs(40) },
    );
  });

  it('keeps each catalog’s answers apart: two handlers in one process over two memory stores never answer from each other’s pages', async () => {
    const key = 'second-store-key';
    const deps = await handlerDependencies({ [key]: { plan: STANDARD_PLANS.free, role: 'customer' } });
    const other = await listening(createServer(createRequestHandler(deps)).listen(0, '127.0.0.1'));
    try {
      const ownFirstPage = await send('GET', '/pets?limit=3');
      const otherFirstPage = await fetch(`${other.origin}/v1/pets?limit=3`, { headers: { authorization: `Bearer ${key}` } });
      expect(ownFirstPage.json).not.toEqual([]);
      expect(await otherFirstPage.json()).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
