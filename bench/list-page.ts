/**
 * What the list path spends in process, for builds compared in one run: the list operation's
 * read and answer (`listPets.readAhead` on a PetCatalog over a MemoryPetRepository of 100 pets,
 * then the answer into a stub response whose `end` copies the body into a buffer, as a socket
 * write does), without the network, the router or the quota. The HTTP bench's `GET
 * /v1/pets?limit=20` again and again, then three different pages in turn (a memo of the last page
 * misses each time), then a page read after each write (a create, then the same page). Builds
 * are measured interleaved, round by round; each figure is the median µs per request over the
 * rounds, with its ratio to the first build's in the same round (median of those ratios: above
 * 1, that build spends more).
 *
 * `npm run build && node dist/bench/list-page.js`. Environment: BENCH_BUILDS (built checkouts,
 * comma-separated, each `npm run build`; default this one, `.`), BENCH_ROUNDS (10),
 * BENCH_REQUESTS (50,000 per build per round and scenario).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { positiveFromEnv } from './http/env.js';
import type * as ListPetsModule from '../src/adapters/http/operations/list-pets.js';
import type * as RequestContextModule from '../src/adapters/http/wire/request-context.js';
import type * as MemoryPetsModule from '../src/adapters/memory/memory-pet-repository.js';
import type * as PetCatalogModule from '../src/domain/pets/pet-catalog.js';
import type { OperationServices } from '../src/adapters/http/contract/operation.js';

const builds = (process.env['BENCH_BUILDS'] ?? '.').split(',').filter((dir) => dir !== '').map((dir) => resolve(dir));
const rounds = positiveFromEnv('BENCH_ROUNDS', 10);
const requests = positiveFromEnv('BENCH_REQUESTS', 50_000);
const PETS = 100;

/** What a socket write does with a string body: encode it into memory it owns. */
const scratch = Buffer.allocUnsafe(64 * 1024);
let notOk = 0;
const res = {
  writeHead: (status: number) => {
    if (status !== 200) notOk++;
  },
  end: (body: string) => scratch.write(body),
} as unknown as ServerResponse;
const req = { headers: {} } as IncomingMessage;

type Send = (query: Readonly<Record<string, unknown>>) => Promise<void>;

interface Build {
  readonly dir: string;
  readonly catalog: PetCatalogModule.PetCatalog;
  readonly send: Send;
  readonly create: () => Promise<unknown>;
}

const load = async (dir: string): Promise<Build> => {
  const from = async <Module>(path: string): Promise<Module> => (await import(pathToFileURL(resolve(dir, 'dist', 'src', path)).href)) as Module;
  const { listPets } = await from<typeof ListPetsModule>('adapters/http/operations/list-pets.js');
  const { createRequestContext } = await from<typeof RequestContextModule>('adapters/http/wire/request-context.js');
  const { MemoryPetRepository } = await from<typeof MemoryPetsModule>('adapters/memory/memory-pet-repository.js');
  const { PetCatalog } = await from<typeof PetCatalogModule>('domain/pets/pet-catalog.js');
  const catalog = new PetCatalog(new MemoryPetRepository());
  const statusOf = ['available', 'pending', 'sold'] as const;
  for (let i = 0; i < PETS; i++) await catalog.create({ name: `pet ${i}`, categoryId: 1, status: statusOf[i % 3]! });
  // Only the catalog and basePath are read by the list operation.
  const services = { catalog, basePath: '/v1' } as OperationServices;
  const send: Send = async (query) => (await listPets.readAhead(query, services, undefined))(createRequestContext(req, res));
  return { dir, catalog, send, create: () => catalog.create({ name: 'one more', categoryId: 1, status: 'available' }) };
};

const loaded = await Promise.all(builds.map(load));

// The cursor the first page links to, as a client follows it (the same in every build).
const firstPage = await loaded[0]!.catalog.listJson({ limit: 20 });
if (!firstPage.ok || firstPage.value.next === undefined) throw new Error('the first page of 100 pets links to no next page');
const NEXT_CURSOR = firstPage.value.next.cursor;

const SAME = { limit: '20' };
const TURN = [SAME, { limit: '20', cursor: NEXT_CURSOR }, { limit: '20', status: 'available' }];

interface Scenario {
  readonly name: string;
  readonly run: (build: Build, count: number) => Promise<void>;
}

const scenarios: Scenario[] = [
  {
    name: 'GET /v1/pets?limit=20, again and again',
    run: async ({ send }, count) => {
      for (let i = 0; i < count; i++) await send(SAME);
    },
  },
  {
    name: 'three pages in turn (first, next, status=available)',
    run: async ({ send }, count) => {
      for (let i = 0; i < count; i++) await send(TURN[i % 3]!);
    },
  },
  {
    name: 'a page after each create (µs per page + create)',
    run: async ({ send, create }, count) => {
      // A tenth as many: each adds a pet, and the page read stays the first 20 of them.
      for (let i = 0; i < count / 10; i++) {
        await create();
        await send(SAME);
      }
    },
  },
];

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >>> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

console.log(`list path in process, ${rounds} rounds of ${requests.toLocaleString('en')} requests per build, interleaved; node ${process.version}`);
for (const scenario of scenarios) {
  const perRequest = loaded.map(() => [] as number[]);
  const ratios = loaded.map(() => [] as number[]);
  const count = scenario.name.startsWith('a page after') ? requests / 10 : requests;
  // A warm-up per build, so every one runs optimised code from the first round.
  for (const build of loaded) await scenario.run(build, requests / 5);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? loaded : [...loaded].reverse();
    const figures = new Map<Build, number>();
    for (const build of order) {
      const started = process.hrtime.bigint();
      await scenario.run(build, requests);
      figures.set(build, Number(process.hrtime.bigint() - started) / 1_000 / count);
    }
    loaded.forEach((build, i) => {
      perRequest[i]!.push(figures.get(build)!);
      ratios[i]!.push(figures.get(build)! / figures.get(loaded[0]!)!);
    });
  }
  console.log(`\n${scenario.name}`);
  console.log('build'.padEnd(60) + 'µs/req median'.padStart(15) + 'min'.padStart(8) + '× first'.padStart(10));
  loaded.forEach((build, i) => {
    const line = build.dir.padEnd(60) + median(perRequest[i]!).toFixed(2).padStart(15) + Math.min(...perRequest[i]!).toFixed(2).padStart(8);
    console.log(line + median(ratios[i]!).toFixed(3).padStart(10));
  });
}
if (notOk > 0) throw new Error(`${notOk} answers were not 200`);
