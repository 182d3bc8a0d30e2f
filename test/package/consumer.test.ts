import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownTypeErrors } from './own-type-errors.js';
import { consumerProject, pack, REPO, run } from './packed-project.js';
import { KEY_VERBS } from '../../src/app/cli/keys/verbs.js';

/*
 * The package as a consumer gets it (test/package/packed-project.ts), then imported,
 * type-checked and run from there.
 */

/** What the core entry point must not load. */
const HEAVY_PACKAGES = /\/node_modules\/(ioredis|@ioredis|inversify|@inversifyjs|reflect-metadata|pino|prom-client)\//;

let work: string;
let project: string;
/** The package alone, without the optional peers the server loads: what a client or limiter user installs. */
let light: string;
let packed: readonly string[];
let tarball: string;
/** Servers started by a test, killed at the end should one outlive its test. */
const children = new Set<ChildProcess>();

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'petstore-consumer-'));
  ({ tarball, files: packed } = await pack(work));
  const { peerDependencies } = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
  const consumer = async (name: string, packages: readonly string[]): Promise<string> => consumerProject(work, name, packages);
  // The server's entries need the optional peers: its users install them beside it (docs/embedding.md).
  [project, light] = await Promise.all([
    consumer('consumer', [tarball, ...Object.entries(peerDependencies).map(([name, range]) => `${name}@${range}`)]),
    consumer('light', [tarball]),
  ]);
}, 240_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/** Module hooks that append every URL an import resolves to the file named by RESOLVE_LOG; run with `--import ./register-hooks.mjs`. */
const RESOLVE_HOOKS = {
  'resolve-hooks.mjs': `
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}
`,
  'register-hooks.mjs': `
import { register } from 'node:module';
register('./resolve-hooks.mjs', import.meta.url, { data: { log: process.env.RESOLVE_LOG } });
`,
};

/** Writes `files` into the consumer project. */
async function write(files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(project, name)), { recursive: true });
    await writeFile(join(project, name), text);
  }
}

describe('the packed package, installed by a consumer', { timeout: 240_000 }, () => {
  it('packs dist/src, the schema migrations, the examples, the alert rules, the README, the licence and the manifest, and no tests or benchmarks', async () => {
    for (const required of [
      'README.md',
      'LICENSE',
      'package.json',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/app/cli/cli.js',
      'migrations/0001_records.sql',
      'examples/plans/github-like.json',
      'examples/systemd/petstore.service',
      'deploy/prometheus/petstore-alerts.yml',
    ]) {
      expect(packed, required).toContain(required);
    }
    // Every file `exports` and `bin` point at is in the tarball.
    const manifest = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as {
      exports: Record<string, string | Record<string, string>>;
      bin: Record<string, string>;
    };
    const targets = [...Object.values(manifest.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target))), ...Object.values(manifest.bin)];
    for (const target of targets) expect(packed, `${target} (exports or bin)`).toContain(target.replace(/^\.\//, ''));
    const shipped = [
      /^migrations\/\d{4}_[a-z0-9_]+\.sql$/,
      /^examples\/plans\/[a-z-]+\.json$/,
      /^examples\/systemd\/petstore\.(service|env)$/,
      /^deploy\/prometheus\/petstore-alerts\.yml$/,
    ];
    const stray = packed.filter(
      (path) => !(path.startsWith('dist/src/') || path.startsWith('docs/') || shipped.some((pattern) => pattern.test(path)) || ['README.md', 'LICENSE', 'package.json'].includes(path)),
    );
    expect(stray).toEqual([]);
    expect(packed.filter((path) => /^(test|bench|dist\/test|dist\/bench)\//.test(path))).toEqual([]);
  });

  it('imports every entry point from ESM and uses it', async () => {
    await write({
      'use-entry-points.mjs': `
import { PetCatalog, createMemoryStores, SystemClock } from 'petstore-service';
import { createRedisClient, RedisPetRepository } from 'petstore-service/redis';
import { PostgresPetRepository, migrate, readMigrations } from 'petstore-service/postgres';
import { createHttpServer, PET_STORE_OPERATIONS, buildOpenApiDocument } from 'petstore-service/http';
import { loadConfig, startPetStore } from 'petstore-service/server';

const catalog = new PetCatalog(createMemoryStores(new SystemClock()).pets);
const created = await catalog.create({ name: 'Rex', categoryId: 1 });
const listed = await catalog.list({ limit: 5 });
const config = loadConfig({ PETSTORE_ENV: 'test', PORT: '0', PETSTORE_API_KEYS: 'some-key-123:pro' });
console.log(JSON.stringify({
  created,
  listed,
  createRedisClient: typeof createRedisClient,
  RedisPetRepository: typeof RedisPetRepository,
  PostgresPetRepository: typeof PostgresPetRepository,
  migrate: typeof migrate,
  firstMigration: readMigrations()[0].name,
  createHttpServer: typeof createHttpServer,
  operations: PET_STORE_OPERATIONS.length,
  openapi: typeof buildOpenApiDocument,
  config: config.ok ? { environment: config.value.environment, port: config.value.port, keys: config.value.apiKeys.length } : config.error,
  startPetStore: typeof startPetStore,
}));
`,
    });
    const report = JSON.parse(await run(process.execPath, ['use-entry-points.mjs'], { cwd: project, timeoutMs: 15_000 })) as Record<string, unknown>;
    expect(report).toMatchObject({
      created: { ok: true, value: { id: 1, name: 'Rex', categoryId: 1, status: 'available' } },
      listed: { ok: true, value: { pets: [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }] } },
      createRedisClient: 'function',
      RedisPetRepository: 'function',
      PostgresPetRepository: 'function',
      migrate: 'function',
      // The package's own migrations/, found from the installed entry.
      firstMigration: 'records',
      createHttpServer: 'function',
      openapi: 'function',
      config: { environment: 'test', port: 0, keys: 1 },
      startPetStore: 'function',
    });
    expect(report['operations']).toBeGreaterThan(0);
  });

  it("runs the one-line setup of docs/embedding.md as written: createPetStore, then createRequestHandler over node:http", async () => {
    const readme = await readFile(join(REPO, 'docs', 'embedding.md'), 'utf8');
    const block = /\*\*One-line setup\*\*[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block, 'docs/embedding.md has the one-line setup block').toBeDefined();
    await write({
      'readme-setup.mjs': `${block}
await new Promise((resolve) => server.once('listening', resolve));
const base = \`http://127.0.0.1:\${server.address().port}/v1\`;
const headers = { authorization: 'Bearer my-shop-key-1', 'content-type': 'application/json' };
const created = await fetch(\`\${base}/pets\`, { method: 'POST', headers, body: JSON.stringify({ name: 'Rex', categoryId: 1 }) });
const listed = await fetch(\`\${base}/pets\`, { headers });
console.log(JSON.stringify({ created: created.status, limit: listed.headers.get('x-ratelimit-limit'), pets: await listed.json() }));
server.close();
await petStore.close();
`,
    });
    const output = await run(process.execPath, ['readme-setup.mjs'], { cwd: project, timeoutMs: 15_000, env: { ...process.env, PORT: '0' } });
    expect(JSON.parse(output)).toEqual({ created: 201, limit: '300', pets: [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }] });
  });

  it('type-checks the client alone in a browser project: no @types/node ("types": []), lib dom and es2022, and the client example of docs/embedding.md in it', async () => {
    const guide = await readFile(join(REPO, 'docs', 'embedding.md'), 'utf8');
    const example = /## The client[\s\S]*?```ts\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(example, 'docs/embedding.md has the client example').toBeDefined();
    await write({
      'browser/tsconfig.json': JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', strict: true, noEmit: true, types: [], lib: ['dom', 'es2022'] },
        files: ['use-client.ts', 'readme-client.ts'],
      }),
      'browser/readme-client.ts': example ?? '',
      'browser/use-client.ts': `
import { PetStoreClient, type Pet } from 'petstore-service/client';
const client = new PetStoreClient({ baseUrl: 'https://api.example/v1', apiKey: 'k' });
export const first: Promise<Pet | undefined> = client.listPets({ limit: 5, status: 'available' }).then((page) => page.items[0]);
`,
    });
    expect(ownTypeErrors(join(project, 'browser/tsconfig.json'), 'petstore-service')).toEqual([]);
  });

  it('requires every entry point from CommonJS on the Node versions engines names (require of ES modules)', async () => {
    await write({
      'use-entry-points.cjs': `
const entries = ['petstore-service', 'petstore-service/redis', 'petstore-service/postgres', 'petstore-service/http', 'petstore-service/server', 'petstore-service/client'];
console.log(JSON.stringify(entries.map((entry) => [entry, Object.keys(require(entry)).length > 0])));
`,
    });
    const output = await run(process.execPath, ['--no-warnings', 'use-entry-points.cjs'], { cwd: project, timeoutMs: 15_000 });
    expect(JSON.parse(output)).toEqual(
      ['petstore-service', 'petstore-service/redis', 'petstore-service/postgres', 'petstore-service/http', 'petstore-service/server', 'petstore-service/client'].map((entry) => [entry, true]),
    );
    const { engines } = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { engines: { node: string } };
    // require() of an ES module needs no flag from Node 20.19 (and 22.12): engines must not promise it earlier.
    expect(engines.node).toBe('>=20.19');
  });

  it('type-checks a TypeScript consumer (NodeNext, strict) against every entry point', async () => {
    const catalogTypes = await readFile(join(project, 'node_modules/petstore-service/dist/src/domain/pets/pet-catalog.d.ts'), 'utf8');
    const createIsTyped = !/\bcreate\(input: unknown\b/.test(catalogTypes);
    await write({
      'tsconfig.json': JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          typeRoots: [join(REPO, 'node_modules/@types')],
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
      'consumer.ts': `
import { PetCatalog, createMemoryStores, SystemClock, type DomainError, type Pet, type PetPage, type PetRepository, type Result } from 'petstore-service';
import { createRedisClient, RedisPetRepository, type RedisClientOptions } from 'petstore-service/redis';
import { PostgresPetRepository, type PostgresDatabase } from 'petstore-service/postgres';
import { createHttpServer, PET_STORE_OPERATIONS, type HttpServerDependencies, type HttpServerOptions, type Operation, type PetStoreHttpServer } from 'petstore-service/http';
import { loadConfig, startPetStore, type Environ, type PetStoreConfig, type RunningPetStore } from 'petstore-service/server';

const pets: PetRepository = createMemoryStores(new SystemClock()).pets;
const catalog = new PetCatalog(pets);
const created: Result<Pet, DomainError> = await catalog.create({ name: 'Rex', categoryId: 1 });
const page: Result<PetPage, DomainError> = await catalog.list({ limit: 5 });
export const names: readonly string[] = page.ok ? page.value.pets.map((pet) => pet.name) : [];
export const id: number | undefined = created.ok ? created.value.id : undefined;

const redisOptions: RedisClientOptions = { url: 'redis://127.0.0.1:6379' };
export const connect = (): ReturnType<typeof createRedisClient> => createRedisClient(redisOptions);
export const redisPets = (redis: Awaited<ReturnType<typeof createRedisClient>>): PetRepository => new RedisPetRepository(redis, 'petstore:');
export const sqlPets = (db: PostgresDatabase): PetRepository => new PostgresPetRepository(db, new SystemClock());

export const operations: readonly Operation[] = PET_STORE_OPERATIONS;
export const serve: (deps: HttpServerDependencies, options: HttpServerOptions) => PetStoreHttpServer = createHttpServer;

const environ: Environ = { PETSTORE_ENV: 'test' };
const loaded = loadConfig(environ);
export const config: PetStoreConfig | readonly string[] = loaded.ok ? loaded.value : loaded.error;
// @ts-expect-error: the configured port is a number, not any
export const portName: string = loaded.ok ? loaded.value.port : '';
export const start: (environ: Environ) => Promise<RunningPetStore> = startPetStore;
${createIsTyped ? '// @ts-expect-error: a pet name is a string\nawait catalog.create({ name: 42, categoryId: 1 });' : ''}
`,
    });
    await run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', join(project, 'tsconfig.json')], { cwd: project, timeoutMs: 180_000 });
    // PetCatalog.create may still take `unknown`; the mistyped-create check joins in once it is typed.
    if (!createIsTyped) console.warn('consumer type check: PetCatalog.create still takes unknown; the @ts-expect-error on a mistyped pet is left out');
  });

  it('importing petstore-service loads no ioredis, inversify, reflect-metadata, pino or prom-client and changes no global; petstore-service/postgres no database client either', async () => {
    const log = join(work, 'resolved.log');
    await writeFile(log, '');
    await write({
      ...RESOLVE_HOOKS,
      'import-core.mjs': `
import { readFileSync } from 'node:fs';
const resolved = () => readFileSync(process.env.RESOLVE_LOG, 'utf8').split('\\n').filter(Boolean);
const globals = () => Reflect.ownKeys(globalThis).map(String).sort();
const reflect = () => Reflect.ownKeys(Reflect).map(String).sort();
const before = { globals: globals(), reflect: reflect() };
const core = await import('petstore-service');
const afterCore = {
  exports: Object.keys(core).length,
  resolved: resolved(),
  globals: globals(),
  reflect: reflect(),
  getMetadata: typeof globalThis.Reflect.getMetadata,
};
// The repositories a store on a PostgreSQL-speaking engine builds on, without the server's client.
await import('petstore-service/postgres');
const afterPostgres = { resolved: resolved() };
// The control: the server and Redis entry points do load them, and the hook sees it.
await import('petstore-service/server');
await import('petstore-service/redis');
const afterServer = { resolved: resolved(), getMetadata: typeof globalThis.Reflect.getMetadata };
console.log(JSON.stringify({ before, afterCore, afterPostgres, afterServer }));
`,
    });
    const output = await run(process.execPath, ['--import', './register-hooks.mjs', 'import-core.mjs'], {
      cwd: project,
      env: { ...process.env, RESOLVE_LOG: log },
      timeoutMs: 15_000,
    });
    const { before, afterCore, afterPostgres, afterServer } = JSON.parse(output) as {
      before: { globals: string[]; reflect: string[] };
      afterCore: { exports: number; resolved: string[]; globals: string[]; reflect: string[]; getMetadata: string };
      afterPostgres: { resolved: string[] };
      afterServer: { resolved: string[]; getMetadata: string };
    };
    expect(afterCore.exports).toBeGreaterThan(0);
    expect(afterCore.resolved.some((url) => url.endsWith('/node_modules/petstore-service/dist/src/index.js'))).toBe(true);
    expect(afterCore.resolved.filter((url) => HEAVY_PACKAGES.test(url))).toEqual([]);
    expect(afterCore.getMetadata).toBe('undefined');
    expect(afterCore.globals).toEqual(before.globals);
    expect(afterCore.reflect).toEqual(before.reflect);
    expect(afterPostgres.resolved.some((url) => url.endsWith('/node_modules/petstore-service/dist/src/postgres.js'))).toBe(true);
    expect(afterPostgres.resolved.filter((url) => HEAVY_PACKAGES.test(url) || url.includes('/node_modules/postgres/'))).toEqual([]);
    // The hook would have seen them: /server and /redis load these (prom-client only when an app with an admin listener builds its metrics).
    const loaded = new Set(afterServer.resolved.map((url) => HEAVY_PACKAGES.exec(url)?.[1]).filter((name) => name !== undefined));
    expect([...loaded]).toEqual(expect.arrayContaining(['ioredis', 'inversify', 'reflect-metadata', 'pino']));
    // PGlite's WebAssembly loads when PETSTORE_STORE=pglite opens its store, never with an entry point.
    expect(afterServer.resolved.filter((url) => url.includes('/node_modules/@electric-sql/pglite/'))).toEqual([]);
    expect(afterServer.getMetadata).toBe('function');
  });

  it('importing petstore-service/client loads the client files only: nothing else of the package, no package, no node: module', async () => {
    const log = join(work, 'resolved-client.log');
    await writeFile(log, '');
    await write({
      ...RESOLVE_HOOKS,
      'import-client.mjs': `
const { PetStoreClient, PetStoreError } = await import('petstore-service/client');
const client = new PetStoreClient({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey: 'some-key-123' });
console.log(JSON.stringify({ pets: typeof client.pets, code: new PetStoreError(404, 'not_found', 'No such resource.').code }));
`,
    });
    const output = await run(process.execPath, ['--import', './register-hooks.mjs', 'import-client.mjs'], { cwd: project, env: { ...process.env, RESOLVE_LOG: log }, timeoutMs: 15_000 });
    expect(JSON.parse(output)).toEqual({ pets: 'function', code: 'not_found' });
    const resolved = (await readFile(log, 'utf8')).split('\n').filter((url) => url !== '' && !url.endsWith('/import-client.mjs'));
    expect(resolved.some((url) => url.endsWith('/node_modules/petstore-service/dist/src/client.js'))).toBe(true);
    expect(resolved.filter((url) => !/\/node_modules\/petstore-service\/dist\/src\/client(\.js|\/[a-z-]+\.js)$/.test(url))).toEqual([]);
  });

  it('installs the petstore bin: --help prints the usage and exits 0', async () => {
    const output = await run(join(project, 'node_modules/.bin/petstore'), ['--help'], { cwd: project, timeoutMs: 15_000 });
    expect(output).toMatch(/^Usage: petstore \[--env development\|test\|staging\|production\]/);
    expect(output).toContain(`petstore keys ${KEY_VERBS.map((verb) => verb.name).join('|')}`);
  });

  it('serves from the installed bin and exits 0 on SIGTERM', async () => {
    const child = spawn(join(project, 'node_modules/.bin/petstore'), [], {
      cwd: project,
      env: { PATH: process.env['PATH'] ?? '', PETSTORE_ENV: 'test', PORT: '0', PETSTORE_API_KEYS: 'some-key-123:pro' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let output = '';
    const listening = new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "listening on" within 15 s:\n${output}`)), 15_000);
      const append = (chunk: Buffer): void => {
        output += chunk.toString('utf8');
        const match = /listening on (\S+)/.exec(output);
        if (match?.[1] !== undefined) {
          clearTimeout(timer);
          resolveUrl(match[1]);
        }
      };
      child.stdout.on('data', append);
      child.stderr.on('data', append);
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`exited before listening:\n${output}`));
      });
    });
    try {
      const url = await listening;
      const response = await fetch(`${url}/pets`, { headers: { authorization: 'Bearer some-key-123' }, signal: AbortSignal.timeout(5_000) });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual([]);
      // The docs page's files come from swagger-ui-dist, a dependency installed without dev ones.
      for (const [path, contentType] of [['/docs', 'text/html'], ['/docs/swagger-ui-bundle.js', 'text/javascript']] as const) {
        const docs = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(5_000) });
        expect(docs.status, path).toBe(200);
        expect(docs.headers.get('content-type'), path).toMatch(new RegExp(`^${contentType};`));
        expect((await docs.arrayBuffer()).byteLength, path).toBeGreaterThan(0);
      }
    } finally {
      child.kill('SIGTERM');
    }
    const timeout = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const [code, signal] = await exited;
    clearTimeout(timeout);
    expect({ code, signal }, output).toEqual({ code: 0, signal: null });
  });
});

describe("the package installed alone: the core, the limiter and the client without the server's packages", () => {
  it('installs the package, typebox and find-my-way (with its own few), none of the packages the server loads', async () => {
    const installed = (await run('npm', ['ls', '--all', '--parseable', '--omit=dev'], { cwd: light, timeoutMs: 15_000 }))
      .split('\n')
      .filter((path) => path.includes('/node_modules/'))
      .map((path) => path.slice(path.lastIndexOf('/node_modules/') + '/node_modules/'.length));
    expect(installed).toEqual(expect.arrayContaining(['petstore-service', 'typebox', 'find-my-way']));
    // @opentelemetry/api too: the by-hand server below runs without it, so nothing loads it eagerly.
    for (const server of ['inversify', 'ioredis', 'pino', 'postgres', 'prom-client', 'reflect-metadata', 'swagger-ui-dist', '@opentelemetry/api']) {
      expect(installed, server).not.toContain(server);
    }
    expect(installed.length, installed.join(', ')).toBeLessThanOrEqual(10);
  });

  it('runs an exact limiter and the client from a light install', async () => {
    await writeFile(
      join(light, 'light.mjs'),
      `
import { createRateLimiter, MemoryQuotaStore, SystemClock } from 'petstore-service';
import { PetStoreClient } from 'petstore-service/client';
const limiter = createRateLimiter({ rules: [{ name: 'minute', limit: 2, windowMs: 60_000 }], store: new MemoryQuotaStore(new SystemClock()) });
const verdicts = [limiter.check('a', 2).allowed, limiter.get('a').allowed, limiter.check('a').allowed];
limiter.reset('a');
const client = new PetStoreClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'some-key-123' });
console.log(JSON.stringify({ verdicts, afterReset: limiter.get('a').decision.remaining, client: typeof client.pets }));
`,
    );
    const output = await run(process.execPath, ['light.mjs'], { cwd: light, timeoutMs: 15_000 });
    expect(JSON.parse(output)).toEqual({ verdicts: [true, false, false], afterReset: [2], client: 'function' });
  });

  it("serves the API from a light install, composed by hand over memory stores as docs/embedding.md shows (createPetStore needs the server's packages)", async () => {
    const guide = await readFile(join(REPO, 'docs', 'embedding.md'), 'utf8');
    const block = /\*\*Without the server's packages\*\*[\s\S]*?```js\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(block, "docs/embedding.md has the block composing the handler by hand").toBeDefined();
    await writeFile(
      join(light, 'by-hand.mjs'),
      `${block}
await new Promise((resolve) => server.once('listening', resolve));
const base = \`http://127.0.0.1:\${server.address().port}/v1\`;
const headers = { authorization: 'Bearer my-shop-key-1', 'content-type': 'application/json' };
const created = await fetch(\`\${base}/pets\`, { method: 'POST', headers, body: JSON.stringify({ name: 'Rex', categoryId: 1 }) });
const listed = await fetch(\`\${base}/pets\`, { headers });
const status = await fetch(\`\${base}/rate_limit\`, { headers });
console.log(JSON.stringify({ created: created.status, limit: listed.headers.get('x-ratelimit-limit'), pets: await listed.json(), status: status.status }));
server.close();
`,
    );
    const output = await run(process.execPath, ['by-hand.mjs'], { cwd: light, timeoutMs: 15_000, env: { ...process.env, PORT: '0' } });
    expect(JSON.parse(output)).toEqual({ created: 201, limit: '300', pets: [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }], status: 200 });
  });

  it('the petstore bin of a light install names the packages the server needs and how to install them, exit 1', async () => {
    // Node looks for packages in every parent's node_modules: one there would lend the light install the server's packages.
    const parents = light.split('/').map((_, i, parts) => join('/', ...parts.slice(0, i), 'node_modules'));
    expect(parents.filter((path) => existsSync(path)), 'node_modules folders above the light install').toEqual([]);
    const failure = await run(join(light, 'node_modules/.bin/petstore'), ['--help'], { cwd: light, timeoutMs: 15_000 }).then(
      () => undefined,
      (error: unknown) => String(error),
    );
    expect(failure).toMatch(
      /petstore: the server needs inversify, ioredis, pino, postgres, prom-client, reflect-metadata, swagger-ui-dist, which are not installed: npm install inversify ioredis pino postgres prom-client reflect-metadata swagger-ui-dist/,
    );
    expect(failure).toMatch(/exit code 1|code: 1|failed/);
  });
});
